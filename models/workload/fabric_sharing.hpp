// The replica's jobs on one shared fabric: what each model job on a fabric sends to the network part
// (fabric/shared_fabric.hpp) and the sharing factors it gets back for its pace (job_pace.hpp).
//
// A job holding its full GPUs registers its traffic (JobPace::fabric_traffic over its GPUs in rank
// order) under a key of its pace's state (placement class, bandwidth shares, clock, NVLink share):
// equal keys skip the step evaluations. A job that holds fewer GPUs (released, shrunk, queued) leaves
// the network. resolve() re-solves the components that changed; factors(job) is per GroupAxis, 1 for
// axes that do not cross domains and for jobs alone. Overlap `ISOLATED` keeps every factor at 1 (each
// job as if alone: the behaviour before the shared fabric).
// Every placed job's traffic also feeds the fabric's link utilisation (fabric/link_utilisation.hpp),
// coupled or not (`couple` false: the job stays out of the shared solve, e.g. alone on the fabric, or
// `coupling` off with phase_overlap isolated): record(t) after each resolve closes the interval.
#pragma once

#include "models/fabric/link_utilisation.hpp"
#include "models/fabric/shared_fabric.hpp"
#include "models/workload/job_pace.hpp"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace dcsim::workload {

class FabricSharing {
public:
  /// `coupling` false: no job ever enters the shared solve (factors stay 1); utilisation is still kept.
  FabricSharing(const fabric::FabricPlatform& fabric, fabric::PhaseOverlap overlap, std::uint64_t seed,
                fabric::SharedRouting routing = {}, bool coupling = true);

  /// The job holds its full GPUs (`gpus`, rank order, asked only when its state changed) at `pace`;
  /// `couple`: it enters the shared solve (else only the utilisation).
  void place(int job, JobPace& pace, const Pace& state, const std::function<std::vector<int>()>& gpus,
             bool couple = true);
  void remove(int job);
  /// A link, switch or plane failed or healed: every component is solved again at the next resolve.
  void capacities_changed() {
    net_.capacities_changed();
    util_.capacities_changed();
  }
  void resolve();
  /// The traffic in force from `t_s` on (after resolve): closes the utilisation's interval.
  void record(double t_s) { util_.advance(t_s); }
  fabric::LinkUtilisation& utilisation() { return util_; }
  std::array<double, 6> factors(int job) const;
  int component_size(int job) const { return net_.component_size(job); }
  const fabric::SharedFabric& network() const { return net_; }
  fabric::SharedFabric& network() { return net_; } ///< converged storage adds its flows (storage/fabric_storage.hpp)

private:
  fabric::SharedFabric net_;
  fabric::LinkUtilisation util_;
  bool coupling_;
  std::map<int, std::vector<GroupAxis>> axes_; ///< per registered job: its phases' axes
  std::map<int, std::uint64_t> keys_;
};

} // namespace dcsim::workload
