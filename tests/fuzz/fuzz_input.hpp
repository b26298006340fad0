// The input format of the loader fuzzer (tests/fuzz/loader_fuzzer.cpp), shared with the regression test
// that replays tests/fuzz/regressions/ in the normal suite.
//
// An input is scenario text, optionally followed by a line "#--set" and then one `--set` assignment per
// line: the seeds (scenarios/*.json) are plain scenarios, and mutations reach the --set parser too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::fuzz {

inline constexpr std::string_view SET_MARKER = "\n#--set\n";

struct FuzzInput {
  std::string text;              ///< the scenario text
  std::vector<std::string> sets; ///< --set assignments
};

inline FuzzInput split_fuzz_input(std::string_view data) {
  FuzzInput in;
  const auto marker = data.find(SET_MARKER);
  in.text = std::string(data.substr(0, marker));
  if (marker == std::string_view::npos) return in;
  std::string_view rest = data.substr(marker + SET_MARKER.size());
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    const std::string_view line = rest.substr(0, newline);
    if (!line.empty()) in.sets.emplace_back(line);
    if (newline == std::string_view::npos) break;
    rest.remove_prefix(newline + 1);
  }
  return in;
}

} // namespace dcsim::fuzz
