// A training job's recovery strategy as the scenario gives it (/jobs/*/recovery): its name and the
// parameters its keys decode to. The strategies, their keys and their classes are listed in
// recovery/registry.cpp; the key table below is assembled from them (`strategy` + every strategy's own
// keys, each allowed only with its strategy).
#pragma once

#include "sim/json_reader.hpp"

#include <memory>
#include <string>

namespace dcsim::workload {

struct ModelJobSpec;

/// A strategy's decoded keys (each strategy derives its own).
struct StrategyParams {
  virtual ~StrategyParams() = default;
};

/// What a strategy's decoder may know of its job.
struct RecoveryContext {
  int gpus = 0;
  const ModelJobSpec* model = nullptr; ///< its parallelism, or null for a measured job
  double min_gpus_frac = 1;
};

struct RecoverySpec {
  std::string strategy = "restart";
  std::shared_ptr<const StrategyParams> params; ///< null for a strategy without keys

  /// The parameters as strategy `T`'s, or null when the job uses another strategy.
  template <class T> const T* as() const { return dynamic_cast<const T*>(params.get()); }
};

const sim::KeyTable& recovery_keys();

/// Decodes /jobs/*/recovery of a training job of `gpus` GPUs (model: its parallelism, or null).
RecoverySpec decode_recovery(const sim::Node& job, int gpus, const ModelJobSpec* model, double min_gpus_frac);

} // namespace dcsim::workload
