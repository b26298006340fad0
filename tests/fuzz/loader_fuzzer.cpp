// libFuzzer harness of the scenario loader: text -> parse -> --set overrides -> decode -> validate, as
// `dcsim validate` does, without building or simulating anything. Built by -DDCSIM_FUZZ=ON with clang
// (tools/fuzz). Besides the sanitizers' reports, the harness aborts when the loader breaks its contract:
// a rejected input must come with at least one problem, every line of which is located
// ("FILE: /pointer: ..." or "FILE: line L, column C: ..." or "FILE: --set ..."); an accepted scenario's
// resource estimate (tools/dcsim/resource_budget.hpp) must be defined (not NaN, not negative).
#include "tests/fuzz/fuzz_input.hpp"
#include "tools/dcsim/resource_budget.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr const char* FILE_LABEL = "fuzz/scenario.json";

[[noreturn]] void contract_broken(const char* what, const std::string& errors) {
  std::fprintf(stderr, "loader contract broken: %s\n%s\n", what, errors.substr(0, 4000).c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = dcsim::fuzz::split_fuzz_input(std::string_view(reinterpret_cast<const char*>(data), size));
  const auto loaded = dcsim::tools::load_scenario_text(input.text, FILE_LABEL, input.sets);
  if (loaded.scenario) {
    if (!loaded.errors.empty()) contract_broken("a scenario was returned with errors", loaded.errors);
    // The resource estimate (run and sweep refuse over-budget scenarios with it) is defined for every
    // accepted scenario: never NaN, never negative.
    const auto estimate = dcsim::tools::estimate_resources(*loaded.scenario, 2);
    if (!(estimate.bytes >= 0) || !(estimate.events_per_replica >= 0) || estimate.main_key.empty())
      contract_broken("the resource estimate is undefined", estimate.main_reason);
    return 0;
  }
  if (loaded.errors.empty()) contract_broken("rejected without a message", loaded.errors);
  const std::string prefix = std::string(FILE_LABEL) + ": ";
  for (std::size_t start = 0; start < loaded.errors.size();) {
    const auto stop = loaded.errors.find('\n', start);
    if (stop == std::string::npos) contract_broken("the errors do not end with a newline", loaded.errors);
    const std::string line = loaded.errors.substr(start, stop - start);
    start = stop + 1;
    if (line.rfind(prefix, 0) != 0) contract_broken("an error line without the file label", loaded.errors);
    const char next = line.size() > prefix.size() ? line[prefix.size()] : '\0';
    if (next != '/' && next != 'l' && next != '-' && !(next >= '0' && next <= '9'))
      contract_broken("an error line without a location", loaded.errors);
  }
  return 0;
}
