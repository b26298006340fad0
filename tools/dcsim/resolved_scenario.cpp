#include "tools/dcsim/resolved_scenario.hpp"

#include <iostream>
#include <stdexcept>

namespace dcsim::tools {

namespace {

using sim::Json;
using sim::KeyTable;

const KeyTable* table_at(const std::string& pattern) {
  for (const KeyTable* t : scenario_key_tables())
    if (t->path == pattern) return t;
  return nullptr;
}

/// True when the document decodes without a problem (the name is explicit by then).
bool decodes(const Json& document) {
  sim::Problems problems;
  const auto scenario = decode_scenario(document, "scenario", problems);
  return scenario && problems.empty();
}

/// Fills, in `object` (matched by `table`), each absent key with a constant default the decoder accepts
/// there (`root`, the whole document, is decoded after each fill), then recurses into the objects and
/// arrays of objects that have their own table ("*" in a table's path stands for array elements).
void fill_defaults(Json& root, Json& object, const KeyTable& table) {
  for (const auto& key : table.keys) {
    if (!object.contains(key.name) && !key.default_value.is_null()) {
      object[key.name] = key.default_value;
      if (!decodes(root)) object.erase(key.name);
    }
    const auto value = object.find(key.name);
    if (value == object.end()) continue;
    const std::string child = table.path + "/" + key.name;
    if (value->is_object()) {
      if (const KeyTable* t = table_at(child)) fill_defaults(root, *value, *t);
    } else if (value->is_array()) {
      if (const KeyTable* t = table_at(child + "/*"))
        for (auto& element : *value)
          if (element.is_object()) fill_defaults(root, element, *t);
    }
  }
}

/// A key filled with its default: where (JSON pointer), in which object, under which name.
struct Filled {
  std::string pointer;
  Json* object;
  std::string key;
};

/// Fills every absent key with a constant default at once (no decoding), recursing as fill_defaults
/// does, and records where. Objects are std::maps: inserting keeps the recorded objects in place.
void fill_all(Json& object, const KeyTable& table, const std::string& pointer, std::vector<Filled>& filled) {
  for (const auto& key : table.keys) {
    if (!object.contains(key.name) && !key.default_value.is_null()) {
      object[key.name] = key.default_value;
      filled.push_back({pointer + "/" + sim::pointer_token(key.name), &object, key.name});
    }
    const auto value = object.find(key.name);
    if (value == object.end()) continue;
    const std::string child = table.path + "/" + key.name;
    const std::string child_pointer = pointer + "/" + sim::pointer_token(key.name);
    if (value->is_object()) {
      if (const KeyTable* t = table_at(child)) fill_all(*value, *t, child_pointer, filled);
    } else if (value->is_array()) {
      if (const KeyTable* t = table_at(child + "/*"))
        for (std::size_t i = 0; i < value->size(); ++i)
          if ((*value)[i].is_object()) fill_all((*value)[i], *t, child_pointer + "/" + std::to_string(i), filled);
    }
  }
}

/// The defaults filled in linear time: all at once, then the filled keys that a decoding problem names
/// are taken out again, until the document decodes (a default the decoder rejects is reported at its
/// key: cdu_approach_k without a trace, grid_policy without grid events). False when a problem names no
/// filled key: then the caller fills key by key (fill_defaults, one decoding per key: quadratic, and
/// what made `dcsim scenario` take 9 s for 400 failure modes).
bool fill_defaults_at_once(Json& document, const KeyTable& root) {
  std::vector<Filled> filled;
  fill_all(document, root, "", filled);
  for (int round = 0; round < 16; ++round) {
    sim::Problems problems;
    const auto scenario = decode_scenario(document, "scenario", problems);
    if (scenario && problems.empty()) return true;
    bool removed = false;
    for (const auto& problem : problems.list())
      for (auto& f : filled)
        if (f.object && f.pointer == problem.pointer) {
          f.object->erase(f.key);
          f.object = nullptr;
          removed = true;
        }
    if (!removed) return false;
  }
  return false;
}

/// Trace files replaced by the points the loader read from them.
void inline_traces(Json& document, const Scenario& scenario) {
  if (auto cooling = document.find("cooling");
      cooling != document.end() && cooling->is_object() && scenario.cooling)
    if (cooling->erase("facility_water_trace_file") > 0) {
      Json points = Json::array();
      for (const auto& p : scenario.cooling->facility_trace)
        points.push_back(Json::array({p.time_h, p.temp_c}));
      (*cooling)["facility_water_trace"] = points;
    }
  auto jobs = document.find("jobs");
  if (jobs == document.end() || !jobs->is_array()) return;
  for (std::size_t i = 0; i < jobs->size() && i < scenario.jobs.size(); ++i) {
    Json& job = (*jobs)[i];
    if (!job.is_object() || job.erase("demand_trace_file") == 0) continue;
    Json points = Json::array();
    for (const auto& [t, demand] : scenario.jobs[i].demand_trace)
      points.push_back(Json::array({t, demand}));
    job["demand_trace"] = points;
  }
}

} // namespace

Json resolved_scenario(const LoadedScenario& loaded) {
  if (!loaded.scenario) throw std::logic_error("resolved_scenario: the scenario did not load");
  Json document = loaded.document;
  document["name"] = loaded.scenario->name;
  inline_traces(document, *loaded.scenario);
  const KeyTable* root = table_at("");
  if (!root || !decodes(document))
    throw std::logic_error("resolved_scenario: the resolved document does not decode");
  Json at_once = document;
  if (fill_defaults_at_once(at_once, *root)) return at_once;
  fill_defaults(document, document, *root);
  return document;
}

int scenario_command(const std::string& path, const std::vector<std::string>& overrides,
                     bool allow_outside_files) {
  const auto loaded = load_scenario(path, overrides, {allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  std::cout << resolved_scenario(loaded).dump(2) << "\n";
  return 0;
}

} // namespace dcsim::tools
