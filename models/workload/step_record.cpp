#include "models/workload/step_record.hpp"

#include <limits>

namespace dcsim::workload {

namespace {
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
}

void StepRecord::close(sim::Tick now) {
  if (!on_ || now <= since_) return;
  const double dt = sim::to_seconds(now - since_);
  weight_s_ += dt;
  shared_sum_ += dt * shared_s_;
  alone_sum_ += dt * alone_s_;
  comm_sum_ += dt * comm_s_;
  since_ = now;
}

void StepRecord::set(sim::Tick now, double shared_s, double alone_s, double comm_s) {
  close(now);
  since_ = now;
  shared_s_ = shared_s;
  alone_s_ = alone_s;
  comm_s_ = comm_s;
}

void StepRecord::training(sim::Tick now, bool on) {
  close(now);
  on_ = on;
  since_ = now;
}

double StepRecord::step_alone_s() const { return weight_s_ > 0 ? alone_sum_ / weight_s_ : NaN; }
double StepRecord::step_shared_s() const { return weight_s_ > 0 ? shared_sum_ / weight_s_ : NaN; }
double StepRecord::fabric_slowdown_frac() const {
  return weight_s_ > 0 && alone_sum_ > 0 ? shared_sum_ / alone_sum_ - 1.0 : NaN;
}
double StepRecord::exposed_comm_frac() const {
  return weight_s_ > 0 && shared_sum_ > 0 ? comm_sum_ / shared_sum_ : NaN;
}

} // namespace dcsim::workload
