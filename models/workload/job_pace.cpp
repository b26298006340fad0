#include "models/workload/job_pace.hpp"

#include <algorithm>

namespace dcsim::workload {

double measured_slowdown(double scaleout_comm_frac, double nvlink_comm_frac, const Pace& pace) {
  const double c = scaleout_comm_frac, v = nvlink_comm_frac;
  return (1.0 - c - v) / pace.clock + c / pace.bw + v / pace.nvlink;
}

JobPace::JobPace(const JobSpec& spec, const hardware::HardwareSpec& hardware,
                 AlphaBetaCommModel::Params params, std::unique_ptr<fabric::FabricCommModel> fabric,
                 double healthy_step_s)
    : spec_(&spec), healthy_step_s_(healthy_step_s), alpha_beta_(params), fabric_(std::move(fabric)) {
  if (!spec.model) return;
  const CommModel& comm = fabric_ ? static_cast<const CommModel&>(*fabric_) : alpha_beta_;
  step_ = std::make_unique<StepModel>(*spec.model, hardware, comm);
  if (fabric_) fabric_->expect(step_->groups());
}

double JobPace::slowdown(const Pace& pace) {
  if (fabric_) {
    fabric_->set_placement_key(pace.placement);
    fabric_->set_scale_out_bw_frac(pace.bw);
    fabric_->set_leaf_bw_frac(pace.leaf_bw);
    fabric_->set_nvlink_bw_frac(pace.nvlink);
    fabric_->set_shared_factors(pace.shared);
  }
  if (!step_) return measured_slowdown(spec_->scaleout_comm_frac, spec_->nvlink_comm_frac, pace);
  alpha_beta_.set_scale_out_bw_frac(pace.bw);
  alpha_beta_.set_nvlink_bw_frac(pace.nvlink);
  return step_->evaluate(pace.clock).step_time_s / healthy_step_s_;
}

JobPace::StepTimes JobPace::step_times(const Pace& pace) {
  const double s = slowdown(pace); // sets the comm models' state
  if (!step_) {
    const double comm = spec_->scaleout_comm_frac / pace.bw + spec_->nvlink_comm_frac / pace.nvlink;
    return {healthy_step_s_ * s, healthy_step_s_ * comm};
  }
  const StepBreakdown b = step_->evaluate(pace.clock);
  return {b.step_time_s, b.tp_s + b.pp_s + b.dp_s + b.cp_s + b.ep_s};
}

std::vector<JobPace::FabricPhase> JobPace::fabric_traffic(const Pace& pace, double& local_s) {
  std::vector<FabricPhase> phases;
  local_s = 0;
  if (!fabric_ || !step_) return phases;
  Pace alone = pace;
  alone.shared = {1, 1, 1, 1, 1, 1};
  slowdown(alone); // sets the fabric model's state
  const double step_s = step_->evaluate(alone.clock).step_time_s;
  local_s = step_s;
  for (const CommGroup& g : step_->groups()) {
    if (g.ranks <= 1 || std::clamp(g.ranks_per_domain, 1, g.ranks) >= g.ranks) continue; // NVLink only
    std::array<double, 6> doubled{1, 1, 1, 1, 1, 1};
    doubled[static_cast<std::size_t>(g.axis)] = 2;
    fabric_->set_shared_factors(doubled);
    const double t = step_->evaluate(alone.clock).step_time_s - step_s;
    if (t > 0) {
      phases.push_back({g.axis, g, t});
      local_s -= t;
    }
  }
  fabric_->set_shared_factors(pace.shared);
  return phases;
}

} // namespace dcsim::workload
