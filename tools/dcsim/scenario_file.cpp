#include "tools/dcsim/scenario_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dcsim::tools {

LoadedScenario load_scenario_text(const std::string& text, const std::string& file,
                                  const std::vector<std::string>& overrides) {
  LoadedScenario out;
  sim::Problems problems;
  out.document = sim::parse_json_text(text, problems);
  if (!problems.empty()) {
    out.errors = problems.format(file);
    return out;
  }
  for (const auto& assignment : overrides) {
    const std::string error = sim::apply_override(out.document, assignment);
    if (!error.empty()) out.errors += file + ": " + error + "\n";
  }
  if (!out.errors.empty()) return out;
  out.scenario = decode_scenario(out.document, std::filesystem::path(file).stem().string(), problems);
  out.errors = problems.format(file);
  if (!problems.empty()) out.scenario.reset();
  return out;
}

LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    LoadedScenario out;
    out.errors = path + ": cannot read the file\n";
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return load_scenario_text(text.str(), path, overrides);
}

} // namespace dcsim::tools
