#include "tools/dcsim/describe.hpp"

#include "models/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::tools {

bool describe_keys(const std::string& area, std::string& out) {
  std::vector<std::string> areas;
  for (const sim::KeyTable* t : scenario_key_tables())
    if (std::find(areas.begin(), areas.end(), t->area) == areas.end()) areas.push_back(t->area);
  if (!area.empty() && std::find(areas.begin(), areas.end(), area) == areas.end()) {
    out = fmt::format("dcsim describe: unknown area \"{}\"; areas: {}\n", area, fmt::join(areas, ", "));
    return false;
  }
  for (const sim::KeyTable* t : scenario_key_tables()) {
    if (!area.empty() && t->area != area) continue;
    out += fmt::format("{} — {}\n", t->path.empty() ? "/" : t->path, t->summary);
    out += fmt::format("  {:<22} {:<16} {:<12} {:<24} {}\n", "key", "type", "unit", "default", "meaning");
    for (const auto& k : t->keys) {
      std::string meaning = k.meaning;
      if (!k.bounds.describe().empty() &&
          (k.type == sim::ValueType::NUMBER || k.type == sim::ValueType::INTEGER ||
           k.type == sim::ValueType::NUMBER_OR_STRING))
        meaning += fmt::format(" [{}]", k.bounds.describe());
      if (!k.choices.empty()) meaning += fmt::format(" [one of: {}]", fmt::join(k.choices, ", "));
      out += fmt::format("  {:<22} {:<16} {:<12} {:<24} {}\n", k.name, sim::type_name(k.type),
                         k.unit.empty() ? "-" : k.unit, k.default_text(), meaning);
    }
    out += "\n";
  }
  return true;
}

} // namespace dcsim::tools
