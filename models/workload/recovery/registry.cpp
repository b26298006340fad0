#include "models/workload/recovery/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dcsim::workload {

// Every file recovery/strategies/NAME.cpp defines NAME_entry(); the build lists them (strategy_list.inc).
#define DCSIM_RECOVERY_STRATEGY(NAME) const StrategyEntry& NAME##_entry();
#include "models/workload/recovery/strategy_list.inc"
#undef DCSIM_RECOVERY_STRATEGY

namespace {

const StrategyEntry* find_strategy(const std::string& name) {
  for (const auto& e : recovery_strategies())
    if (e.name == name) return &e;
  return nullptr;
}

} // namespace

const std::vector<StrategyEntry>& recovery_strategies() {
  static const std::vector<StrategyEntry> all = [] {
    std::vector<const StrategyEntry*> entries{
#define DCSIM_RECOVERY_STRATEGY(NAME) &NAME##_entry(),
#include "models/workload/recovery/strategy_list.inc"
#undef DCSIM_RECOVERY_STRATEGY
    };
    std::stable_sort(entries.begin(), entries.end(),
                     [](const StrategyEntry* a, const StrategyEntry* b) { return a->rank < b->rank; });
    std::vector<StrategyEntry> sorted;
    for (const StrategyEntry* e : entries)
      sorted.push_back(*e);
    return sorted;
  }();
  return all;
}

const sim::KeyTable& recovery_keys() {
  static const sim::KeyTable table = [] {
    std::vector<std::string> names;
    std::string meaning;
    for (const auto& e : recovery_strategies()) {
      names.push_back(e.name);
      meaning += (meaning.empty() ? "" : "; ") + e.name + ": " + e.meaning;
    }
    std::vector<sim::KeyDef> keys{
        sim::KeyDef{"strategy", sim::ValueType::STRING, "", "restart", meaning, {}, names}};
    for (const auto& e : recovery_strategies())
      keys.insert(keys.end(), e.keys.begin(), e.keys.end());
    return sim::KeyTable{"jobs", "/jobs/*/recovery",
                         "how a training job recovers from a failure of its GPUs (models/workload/recovery/)",
                         std::move(keys)};
  }();
  return table;
}

RecoverySpec decode_recovery(const sim::Node& job, int gpus, const ModelJobSpec* model, double min_gpus_frac) {
  RecoverySpec r;
  const sim::Node n = job.object("recovery", recovery_keys());
  const StrategyEntry* chosen = find_strategy(n.string("strategy"));
  if (!chosen) chosen = &recovery_strategies().front(); // an unknown name is reported by the table
  r.strategy = chosen->name;
  for (const auto& e : recovery_strategies()) {
    if (&e == chosen) continue;
    for (const auto& key : e.keys) {
      const bool shared = std::any_of(chosen->keys.begin(), chosen->keys.end(),
                                      [&](const sim::KeyDef& k) { return k.name == key.name; });
      if (!shared && n.has(key.name)) n.problem(key.name, fmt::format("applies only to strategy \"{}\"", e.name));
    }
  }
  r.params = chosen->decode(n, RecoveryContext{gpus, model, min_gpus_frac});
  return r;
}

std::unique_ptr<RecoveryStrategy> make_recovery_strategy(const RecoverySpec& spec, RecoveryHost& host) {
  const StrategyEntry* e = find_strategy(spec.strategy);
  if (!e) throw std::logic_error("make_recovery_strategy: unknown strategy " + spec.strategy);
  return e->make(spec, host);
}

} // namespace dcsim::workload
