// Reading a scenario file: text -> JSON (comments allowed) -> overrides -> decoded, checked Scenario.
//
// Files are opened without blocking and must be regular files (a FIFO or a device is an error, never a
// wait) of at most MAX_INPUT_BYTES. Trace files named by a scenario (facility_water_trace_file,
// demand_trace_file) must resolve, symbolic links followed, to a file inside the scenario's folder unless
// LoadOptions::allow_outside_files (`--allow-outside-files`); their problems name the line and quote at
// most a short printable excerpt of the offending cell, never a line of the file.
#pragma once

#include "models/scenario.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dcsim::tools {

struct LoadedScenario {
  std::optional<Scenario> scenario; ///< empty when there are problems
  sim::Json document;               ///< the document after overrides
  std::string errors;               ///< every problem, one `FILE: /pointer: message (got X)` per line
};

struct LoadOptions {
  bool allow_outside_files = false; ///< trace files may lie outside the scenario's folder
};

/// The largest scenario or trace file read (bytes).
inline constexpr std::size_t MAX_INPUT_BYTES = std::size_t{64} << 20;

/// Reads a regular file of at most `max_bytes` into `out` without blocking on FIFOs or devices. Returns
/// "" on success, else why not ("is not a regular file", ...).
std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes, std::string& out);

/// Loads `path`, applies `--set` assignments in order, decodes and checks. Never throws on bad input.
LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                             const LoadOptions& options = {});
/// Decodes a document (overrides applied) and reads the trace files it names (relative to `file`'s
/// folder): the scenario, or nullopt with the problems recorded. Every point of a sweep goes through it,
/// so a point carries its trace files as a run does.
std::optional<Scenario> decode_document(const sim::Json& document, const std::string& file,
                                        const LoadOptions& options, sim::Problems& problems);
/// The same from text already in memory (tests, sweeps); `file` labels the messages and locates the
/// trace files (relative to its folder).
LoadedScenario load_scenario_text(const std::string& text, const std::string& file,
                                  const std::vector<std::string>& overrides = {}, const LoadOptions& options = {});

} // namespace dcsim::tools
