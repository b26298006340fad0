// Reading a scenario file: text -> JSON (comments allowed) -> overrides -> decoded, checked Scenario.
#pragma once

#include "models/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dcsim::tools {

struct LoadedScenario {
  std::optional<Scenario> scenario; ///< empty when there are problems
  sim::Json document;               ///< the document after overrides
  std::string errors;               ///< every problem, one `FILE: /pointer: message (got X)` per line
};

/// Loads `path`, applies `--set` assignments in order, decodes and checks. Never throws on bad input.
LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});
/// The same from text already in memory (tests, sweeps); `file` only labels the messages.
LoadedScenario load_scenario_text(const std::string& text, const std::string& file,
                                  const std::vector<std::string>& overrides = {});

} // namespace dcsim::tools
