// The recovery strategies a scenario may name (/jobs/*/recovery/strategy), each with its keys, its decoder
// and its factory. Adding a strategy: one class (recovery/NAME.hpp/.cpp) exposing a StrategyEntry, one line
// in recovery/registry.cpp, its tests (docs/architecture.md, "Add a recovery strategy").
#pragma once

#include "models/workload/recovery/strategy.hpp"
#include "models/workload/recovery_spec.hpp"
#include "sim/json_reader.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dcsim::workload {

struct StrategyEntry {
  std::string name;                ///< the value of /jobs/*/recovery/strategy
  std::string meaning;             ///< one sentence for the key table
  std::vector<sim::KeyDef> keys;   ///< its own keys in /jobs/*/recovery (allowed only with it)
  /// Decodes its keys from the recovery object (problems reported on `n`); may return null (no keys).
  std::function<std::shared_ptr<const StrategyParams>(const sim::Node& n, const RecoveryContext& ctx)> decode;
  std::function<std::unique_ptr<RecoveryStrategy>(const RecoverySpec& spec, RecoveryHost& host)> make;
};

/// Every strategy, the default (restart) first.
const std::vector<StrategyEntry>& recovery_strategies();

} // namespace dcsim::workload
