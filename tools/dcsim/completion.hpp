// The completion marker of an output folder (a run's, or a sweep point's): complete.json, written last.
//
//   { "format": 1, "files": [ { "name": "causes.csv", "bytes": 406, "fnv1a64": "..." }, ... ], ... }
//
// It lists every file of the folder (not itself, not run.json: provenance, which differs between two runs
// of the same scenario and seed; not temporary `*.tmp-*` files) with its size and
// FNV-1a 64 hash; a sweep point adds its index and scenario document. `dcsim compare` and `dcsim report`
// accept a folder only when its marker is there and every listed file is present and matches it, so a
// folder holding parts of two runs, part of one, or an interrupted one, is refused. (tests/golden keeps
// some of a run's files: tools/update-golden writes a marker listing those.)
#pragma once

#include "sim/json_reader.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::tools {

inline constexpr const char* COMPLETE_FILE = "complete.json";

std::string fnv1a64(std::string_view bytes);
/// The output files of a folder, sorted: regular files other than the marker, run.json and temporary files.
std::vector<std::string> listed_output_files(const std::filesystem::path& dir);
/// Writes `members` (an object) plus "format" and "files" as dir/complete.json through a temporary name.
void write_completion_marker(const std::filesystem::path& dir, sim::Json members = sim::Json::object());
/// "" when `dir` holds a completion marker whose files are all present and match it, and that lists
/// every `required` file; otherwise what is wrong.
std::string completion_problem(const std::filesystem::path& dir, const std::vector<std::string>& required);

} // namespace dcsim::tools
