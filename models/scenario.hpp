// A whole scenario: every area's spec, decoded from one parsed JSON document and cross-checked.
//
// Decoding reports every problem at once (sim::Problems) and returns nothing while any remains, so no
// simulation is ever built from a scenario with a known problem. Consistency checks that span areas
// (a job larger than the GPUs left for it, spares of the wrong kind) are made here.
#pragma once

#include "models/cooling/spec.hpp"
#include "models/cost/bill.hpp"
#include "models/cost/spec.hpp"
#include "models/fabric/spec.hpp"
#include "models/failure/spec.hpp"
#include "models/hardware/spec.hpp"
#include "models/ops/rlcc_spec.hpp"
#include "models/ops/spec.hpp"
#include "models/power/spec.hpp"
#include "models/storage/spec.hpp"
#include "models/workload/spec.hpp"
#include "sim/json_reader.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dcsim {

struct OutputSpec {
  double timeseries_interval_s = 3600; ///< 0: no time series
  bool events = true;
};

/// One varied key of a sweep (`dcsim sweep`): a `--set`-style key path and the values it takes.
/// Zipped axes (`--zip`, the block's "zip" list) vary together: the i-th point of their group takes
/// each one's i-th value, so they all list the same number of values and count as one axis of the
/// product, placed where the first of them is.
struct SweepAxis {
  std::string key;
  std::vector<sim::Json> values;
  bool zipped = false;
};

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  int replicas = 10;
  double duration_h = 336;   ///< with end_when_jobs_done: the cap
  bool end_when_jobs_done = false; ///< a replica ends when the last training job with work_h completes
  hardware::HardwareSpec hardware;
  hardware::ClusterSpec cluster;
  std::optional<fabric::FabricSpec> fabric; ///< absent: no scale-out fabric is modelled
  std::optional<cooling::CoolingSpec> cooling; ///< absent: cooling is not modelled
  power::PowerSpec power;
  failure::FailuresSpec failures;
  ops::OperationsSpec operations;
  ops::RlccSpec rlcc;
  std::vector<workload::JobSpec> jobs;
  /// Checkpoint storage tiers (docs/recovery.md); absent: checkpoints cost jobs' write_s.
  std::optional<storage::StorageSpec> storage;
  OutputSpec output;
  /// Prices (docs/cost.md); absent: no cost outputs (`dcsim cost` prices the bill at the defaults).
  std::optional<cost::CostSpec> cost;
  /// The optional "sweep" block: read by `dcsim sweep` only; it never changes a run of this scenario.
  std::vector<SweepAxis> sweep;
};

/// The specs of a scenario the cost model prices (cost/bill.hpp).
inline cost::Plant cost_plant(const Scenario& s) {
  return {s.hardware, s.cluster, s.power, s.operations, s.cooling ? &*s.cooling : nullptr,
          s.storage ? &*s.storage : nullptr};
}

/// The most GPUs a scenario may have (see hardware::MAX_GPUS).
inline constexpr long long MAX_GPUS = hardware::MAX_GPUS;

const sim::KeyTable& scenario_keys();
const sim::KeyTable& output_keys();
const sim::KeyTable& sweep_keys();
const sim::KeyTable& sweep_axis_keys();
/// Every key table of the scenario format, in document order (for describe and the reference).
std::vector<const sim::KeyTable*> scenario_key_tables();

/// Healthy scale-out bandwidth per GPU and direction that collectives can use, Gb/s: the fabric's
/// ports x port_gbps x routing_efficiency_frac, or 0 without a fabric (then hardware.gpu.nic_gbps).
double scale_out_gbps(const Scenario& scenario);

/// Decodes and cross-checks a scenario. `default_name` names it when the document has no "name".
std::optional<Scenario> decode_scenario(const sim::Json& document, const std::string& default_name,
                                        sim::Problems& problems);

} // namespace dcsim
