// A training job's pace: how much longer its step takes than the healthy step, from the state of what
// it runs on. The inputs (a Pace) are, for its GPUs and domains as placed now:
//   bw       B  least scale-out bandwidth share left to its GPUs (fabric faults; 1 without a fabric)
//   clock    f  least clock fraction (thermal throttling, power caps, gray stragglers)
//   nvlink   n  least NVLink share of its domains (degraded NVLink)
//   leaf_bw, placement: a model job on a fabric also needs its leaves' share and its placement class
//            (FabricCommModel's state class: fabric/fabric_tracker.hpp)
// The slowdown s = step(state) / step(healthy) is
//   measured jobs (step_time_s given, shares c = scaleout_comm_frac, v = nvlink_comm_frac of the step):
//     s = (1 − c − v)/f + c/B + v/n
//   model jobs: s = StepModel::evaluate(f).step_time_s / healthy step, with the scale-out network at B
//     (alpha-beta) or played on the fabric (FabricCommModel keyed by placement, B, leaf share, n, and the
//     shared-fabric factors per axis: fabric/shared_fabric.hpp), and NVLink at n. Cached by the step
//     model under the state's signature.
// fabric_traffic: what the shared fabric needs of a model job on a fabric: per axis crossing domains,
//   the seconds of the step proportional to its measured β (t_a = step(β_a × 2) − step, exact where
//   the step is linear in β_a; an all-to-all bound by NVLink gives 0), and local = step − Σ t_a.
// step_times: the step itself (s) and the part of it that is exposed communication (s), for the
//   per-job outputs step_alone_s, step_shared_s and exposed_comm_frac (workload/step_record.hpp).
// The job then runs at max(1, s) (TrainingJob::set_slowdown): its extra time is the ledger's `degraded`.
#pragma once

#include "models/fabric/fabric_comm_model.hpp"
#include "models/fabric/comm_model.hpp"
#include "models/workload/spec.hpp"
#include "models/workload/step_model.hpp"

#include <array>
#include <cstdint>
#include <vector>
#include <memory>

namespace dcsim::workload {

struct Pace {
  double bw = 1, clock = 1, nvlink = 1;
  double leaf_bw = 1;          ///< model jobs on a fabric: the least share its leaves leave (bw: with ports)
  std::uint64_t placement = 0; ///< model jobs on a fabric: their placement class
  std::array<double, 6> shared{1, 1, 1, 1, 1, 1}; ///< model jobs on a fabric: sharing factor per GroupAxis
  bool operator==(const Pace&) const = default;
};

/// s for a measured job.
double measured_slowdown(double scaleout_comm_frac, double nvlink_comm_frac, const Pace& pace);

class JobPace {
public:
  /// `fabric`: the job's collectives played on the fabric (model jobs with a fabric), else null.
  /// `healthy_step_s`: the step the slowdown is measured against. The spec and hardware must outlive this.
  JobPace(const JobSpec& spec, const hardware::HardwareSpec& hardware, AlphaBetaCommModel::Params params,
          std::unique_ptr<fabric::FabricCommModel> fabric, double healthy_step_s);
  JobPace(const JobPace&) = delete;
  JobPace& operator=(const JobPace&) = delete;

  /// Whether the job's collectives are played on the fabric (its pace then needs leaf_bw and placement).
  bool on_fabric() const { return fabric_ != nullptr; }
  /// The slowdown s in state `pace` (not clamped).
  double slowdown(const Pace& pace);
  /// A model job on a fabric: its step in state `pace` alone (shared factors ignored) as local
  /// seconds and the fabric seconds of each axis (above); empty phases for other jobs.
  struct FabricPhase {
    GroupAxis axis;
    CommGroup group;
    double alone_s;
  };
  std::vector<FabricPhase> fabric_traffic(const Pace& pace, double& local_s);
  /// The step in state `pace` (s) and its exposed communication (s): model jobs the step model's
  /// tp + pp + dp + cp + ep; measured jobs healthy × (c/B + v/n) of s above.
  struct StepTimes {
    double step_s = 0;
    double comm_s = 0;
  };
  StepTimes step_times(const Pace& pace);

private:
  const JobSpec* spec_;
  double healthy_step_s_;
  AlphaBetaCommModel alpha_beta_;
  std::unique_ptr<fabric::FabricCommModel> fabric_;
  std::unique_ptr<StepModel> step_; ///< model jobs
};

} // namespace dcsim::workload
