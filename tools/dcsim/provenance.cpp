#include "tools/dcsim/provenance.hpp"

#include "sim/csv.hpp"
#include "sim/json_reader.hpp"

#include "dcsim_build_commit.hpp" // generated at build time (tools/git_commit.cmake): DCSIM_GIT_COMMIT

#include <fmt/format.h>

#include <ctime>

#include <unistd.h>

namespace dcsim::tools {

std::string build_commit() { return DCSIM_GIT_COMMIT; }

void write_run_file(const std::filesystem::path& dir, const RunProvenance& run) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  const sim::Json doc{{"dcsim_version", DCSIM_VERSION},
                      {"git_commit", build_commit()},
                      {"command_line", run.command_line},
                      {"scenario", run.scenario_path},
                      {"seed", run.seed},
                      {"replicas", run.replicas},
                      {"date_utc", date},
                      {"host", host}};
  sim::write_file_atomically(dir / RUN_FILE, doc.dump(2) + "\n");
}

} // namespace dcsim::tools
