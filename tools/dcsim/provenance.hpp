// run.json: where a run's outputs came from, written beside them.
//
//   { "dcsim_version": "0.1.0", "git_commit": "<40 hex digits>[-dirty]" | "unknown",
//     "command_line": ["dcsim", "run", ...], "scenario": "<path as given>", "seed": 1,
//     "replicas": 10, "date_utc": "2026-12-03T13:45:00Z", "host": "<hostname>" }
//
// The commit is the source tree's at build time (tools/CMakeLists.txt regenerates it on every build;
// "-dirty" when the tree had uncommitted changes; "unknown" outside a git checkout). run.json is the
// one output file that differs between two runs of the same scenario and seed (date, host), so the
// completion marker does not list it and `dcsim compare --exact` skips it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dcsim::tools {

inline constexpr const char* RUN_FILE = "run.json";
inline constexpr const char* DCSIM_VERSION = "0.1.0";

struct RunProvenance {
  std::vector<std::string> command_line;
  std::string scenario_path;
  std::uint64_t seed = 0;
  int replicas = 0;
};

/// The commit dcsim was built from ("unknown" when not built from a git checkout).
std::string build_commit();
/// Writes dir/run.json (atomically).
void write_run_file(const std::filesystem::path& dir, const RunProvenance& run);

} // namespace dcsim::tools
