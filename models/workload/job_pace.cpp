#include "models/workload/job_pace.hpp"

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
  }
  if (!step_) return measured_slowdown(spec_->scaleout_comm_frac, spec_->nvlink_comm_frac, pace);
  alpha_beta_.set_scale_out_bw_frac(pace.bw);
  alpha_beta_.set_nvlink_bw_frac(pace.nvlink);
  return step_->evaluate(pace.clock).step_time_s / healthy_step_s_;
}

} // namespace dcsim::workload
