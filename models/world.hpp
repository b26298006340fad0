// The simulated datacenter of one scenario: the SimGrid platform built once per process, and the
// composition of every model area for one replica.
//
// Building the platform (10^5 GPU hosts) costs seconds; running a replica costs milliseconds. A World is
// therefore built once, and replicas run in forked children (sim::ProcessPool), each calling
// run_replica() exactly once: SimGrid's clock cannot be reset within a process.
//
// Wiring of one replica (callbacks, so that earlier areas never include later ones):
//   FailureInjector ─failure─▶ jobs owning a struck GPU (interruption) ─▶ MissionControl (detection)
//   MissionControl ─detected─▶ jobs (recover: Allocator swaps in spares) ; ─repaired─▶ jobs (capacity)
//   GpuHealth transitions ─▶ SimGrid host off/on, Allocator domain counts, ClusterLedger
// Fabric faults (scenarios with a fabric):
//   failure of a NIC port, link, leaf, spine or core ─▶ FabricPlatform (SimGrid link capacities)
//     GPUs left with no path (cut off)    ─▶ down in GpuHealth until the element is back: jobs holding
//                                            them are interrupted and recover as from a GPU failure
//     GPUs left with a share f < 1         ─▶ each job's pace: the slowest GPU's f sets the step
//                                            (model jobs: the step model with scale-out bandwidth × f;
//                                            measured jobs: step·(1 + scaleout_comm_frac·(1/f − 1))),
//                                            the extra time is `degraded`; a new fault first stalls the
//                                            job for the fabric's reroute_s
#pragma once

#include "models/fabric/fabric_platform.hpp"
#include "models/hardware/layout.hpp"
#include "models/hardware/rack_platform.hpp"
#include "models/ledger/replica_result.hpp"
#include "models/scenario.hpp"
#include "models/workload/training_job.hpp"
#include "sim/platform.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace dcsim {

class World {
public:
  /// Builds the platform. One World per process.
  explicit World(const Scenario& scenario);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const Scenario& scenario() const { return scenario_; }
  const hardware::Layout& layout() const { return layout_; }
  sim::Platform& platform() { return *platform_; }
  /// The fabric, when the scenario has one.
  const fabric::FabricPlatform* fabric() const { return fabric_.get(); }
  /// Derived timing of each job (checkpoint interval resolved, rounded to steps).
  const std::vector<workload::JobTiming>& job_timing() const { return timing_; }
  /// Expected failure rate over each job's initial GPUs, per hour.
  const std::vector<double>& job_failure_rate_per_h() const { return job_rate_per_h_; }

  /// Runs replica `replica` to the scenario's end. At most once per process.
  ledger::ReplicaResult run_replica(int replica, const std::function<void(double)>& progress = {});

private:
  Scenario scenario_;
  hardware::Layout layout_;
  std::unique_ptr<sim::Platform> platform_;
  std::unique_ptr<hardware::RackPlatform> racks_;
  std::unique_ptr<fabric::ClosPlan> plan_;
  std::unique_ptr<fabric::ClosGraph> graph_;
  std::unique_ptr<fabric::FabricPlatform> fabric_;
  std::vector<int> mode_units_;           ///< population of each failure mode
  std::vector<double> healthy_step_s_;    ///< per job
  std::vector<workload::JobTiming> timing_;
  std::vector<double> job_rate_per_h_;
  bool ran_ = false;
};

/// Expected rate (per hour) of failures interrupting a job on a set of GPUs: Σ over hardware modes of
/// the unit rate × the number of that mode's units containing at least one of the GPUs, plus the fabric
/// modes whose element cuts a GPU off on its own (with one port per GPU: its NIC port and cable; with
/// one plane: its leaf).
double failure_rate_per_h(const failure::FailuresSpec& failures, const hardware::Layout& layout,
                          const std::vector<int>& gpus, const fabric::ClosPlan* plan = nullptr);

} // namespace dcsim
