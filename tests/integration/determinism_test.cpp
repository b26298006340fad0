// Same scenario and seed => byte-identical output files, whatever -j. Runs the dcsim binary itself
// (one SimGrid engine per process), so this is also an end-to-end test of `dcsim run`.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}
int dcsim_run(const fs::path& out, const std::string& args) {
  const std::string cmd = fmt::format("{} run {}/scenarios/default.json --quiet --out {} {} > {}/stdout.txt", DCSIM_BINARY,
                                      DCSIM_SOURCE_DIR, out.string(), args, out.parent_path().string());
  return std::system(cmd.c_str());
}
} // namespace

TEST_CASE("outputs are byte-identical across runs and parallelism", "[scenario][determinism]") {
  const fs::path base = fs::temp_directory_path() / "dcsim-determinism";
  fs::remove_all(base);
  fs::create_directories(base);
  const std::string common = "--replicas 5 --set duration_h=168";
  REQUIRE(dcsim_run(base / "j1", common + " -j 1") == 0);
  REQUIRE(dcsim_run(base / "j2", common + " -j 2") == 0);
  REQUIRE(dcsim_run(base / "j2again", common + " -j 2") == 0);
  // complete.json lists every output file with its hash: equal markers mean equal folders.
  for (const char* f : {"summary.csv", "replicas.csv", "ledger.csv", "causes.csv", "losses.csv", "events.csv",
                        "timeseries.csv", "complete.json"}) {
    INFO(f);
    const std::string first = slurp(base / "j1" / f);
    CHECK(first.size() > 100);
    CHECK(slurp(base / "j2" / f) == first);
    CHECK(slurp(base / "j2again" / f) == first);
  }
  // A different seed gives a different history.
  REQUIRE(dcsim_run(base / "seed2", common + " --seed 2") == 0);
  CHECK(slurp(base / "seed2" / "events.csv") != slurp(base / "j1" / "events.csv"));
  fs::remove_all(base);
}
