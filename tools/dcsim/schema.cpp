#include "tools/dcsim/schema.hpp"

#include "models/scenario.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace dcsim::tools {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

namespace {

const KeyTable* table_at(const std::string& path) {
  for (const KeyTable* t : scenario_key_tables())
    if (t->path == path) return t;
  return nullptr;
}

bool has_required_key(const KeyTable& t) {
  for (const auto& k : t.keys)
    if (k.required()) return true;
  return false;
}

void add_bounds(Json& schema, const sim::Bounds& b) {
  if (std::isfinite(b.min)) schema[b.min_open ? "exclusiveMinimum" : "minimum"] = b.min;
  if (std::isfinite(b.max)) schema[b.max_open ? "exclusiveMaximum" : "maximum"] = b.max;
}

Json object_schema(const KeyTable& table);

Json key_schema(const KeyTable& table, const KeyDef& k) {
  const std::string child = table.path + "/" + k.name;
  Json s = Json::object();
  switch (k.type) {
  case ValueType::NUMBER:
  case ValueType::INTEGER:
    s["type"] = k.type == ValueType::NUMBER ? "number" : "integer";
    add_bounds(s, k.bounds);
    break;
  case ValueType::BOOLEAN:
    s["type"] = "boolean";
    break;
  case ValueType::STRING:
    s["type"] = "string";
    if (!k.choices.empty()) s["enum"] = k.choices;
    break;
  case ValueType::NUMBER_OR_STRING: {
    Json number{{"type", "number"}};
    add_bounds(number, k.bounds);
    Json word{{"type", "string"}};
    if (!k.choices.empty()) word["enum"] = k.choices;
    s["anyOf"] = Json::array({number, word});
    break;
  }
  case ValueType::OBJECT:
    if (const KeyTable* t = table_at(child))
      s = object_schema(*t);
    else
      s["type"] = "object";
    break;
  case ValueType::ARRAY:
    s["type"] = "array";
    if (const KeyTable* t = table_at(child + "/*")) s["items"] = object_schema(*t);
    break;
  }
  std::string description = k.meaning;
  if (!k.unit.empty()) description += fmt::format(" (unit: {})", k.unit);
  if (!k.default_note.empty()) description += fmt::format(" Default: {}.", k.default_note);
  s["description"] = description;
  if (!k.default_value.is_null()) s["default"] = k.default_value;
  return s;
}

Json object_schema(const KeyTable& table) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const auto& k : table.keys) {
    properties[k.name] = key_schema(table, k);
    // An object whose default is {} but whose own table requires keys must be given.
    const KeyTable* child = k.type == ValueType::OBJECT ? table_at(table.path + "/" + k.name) : nullptr;
    const bool needed =
        k.required() || (child && k.default_value == Json::object() && has_required_key(*child));
    if (needed) required.push_back(k.name);
  }
  Json s{{"type", "object"},
         {"description", table.summary},
         {"properties", properties},
         {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

} // namespace

Json scenario_json_schema() {
  const KeyTable* root = table_at("");
  if (!root) throw std::logic_error("no root key table");
  Json s = object_schema(*root);
  Json out{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
           {"$id", "urn:dcsim:scenario:v1"},
           {"title", "dcsim scenario"}};
  for (auto& [key, value] : s.items())
    out[key] = value;
  return out;
}

std::string scenario_reference_markdown() {
  std::string out =
      "# Scenario reference\n\n"
      "<!-- Generated from the key tables by `dcsim describe --markdown`; do not edit: run "
      "tools/update-docs. -->\n\n"
      "Every key of the scenario format, generated from the key tables that the decoder itself uses (the "
      "list\n"
      "of allowed keys, their defaults and bounds). Units are in the key names; unknown keys are errors.\n"
      "`dcsim describe [AREA]` prints the same on the terminal and `dcsim schema` as a JSON Schema.\n"
      "Paths are JSON pointers; `*` stands for any element of an array.\n";
  for (const KeyTable* t : scenario_key_tables()) {
    out +=
        fmt::format("\n## `{}`\n\n{} (area `{}`)\n\n", t->path.empty() ? "/" : t->path, t->summary, t->area);
    out += "| key | type | unit | default | meaning |\n|---|---|---|---|---|\n";
    for (const auto& k : t->keys) {
      std::string meaning = k.meaning;
      const bool numeric = k.type == ValueType::NUMBER || k.type == ValueType::INTEGER ||
                           k.type == ValueType::NUMBER_OR_STRING;
      if (numeric && !k.bounds.describe().empty()) meaning += fmt::format(" [{}]", k.bounds.describe());
      if (!k.choices.empty()) meaning += fmt::format(" [one of: {}]", fmt::join(k.choices, ", "));
      out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.name, sim::type_name(k.type),
                         k.unit.empty() ? "–" : cell(k.unit),
                         k.required() ? "**required**"
                                      : cell(k.default_value.is_null() ? k.default_note
                                                                       : "`" + k.default_value.dump() + "`"),
                         cell(meaning));
    }
  }
  return out;
}

} // namespace dcsim::tools
