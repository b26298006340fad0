// The recovery strategies a scenario may name (/jobs/*/recovery/strategy), each with its keys, its decoder
// and its factory. Adding a strategy: one file, recovery/strategies/NAME.cpp, defining
// `const StrategyEntry& NAME_entry()`, and its tests in tests/unit/workload/recovery/strategies/; the build
// compiles every file of both folders and lists the strategies (docs/architecture.md, "Adding a recovery
// strategy").
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
  int rank = 0;                    ///< its place in listings (the default, restart, is 0: first)
  std::string meaning;             ///< one sentence for the key table
  std::vector<sim::KeyDef> keys;   ///< its own keys in /jobs/*/recovery (allowed only with it)
  /// Decodes its keys from the recovery object (problems reported on `n`); may return null (no keys).
  std::function<std::shared_ptr<const StrategyParams>(const sim::Node& n, const RecoveryContext& ctx)> decode;
  std::function<std::unique_ptr<RecoveryStrategy>(const RecoverySpec& spec, RecoveryHost& host)> make;
};

/// Every strategy, by rank: the default (restart) first.
const std::vector<StrategyEntry>& recovery_strategies();

} // namespace dcsim::workload
