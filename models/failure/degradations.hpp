// Faults that slow GPUs without taking them down, as a job's pace sees them:
//   gray faults   a GPU runs at clock fraction c_g = 1 / gray_slowdown until the fault is caught or repaired
//   NVLink        a rack's NVLink domain keeps share n_d = nvlink_degraded_frac of its bandwidth (the least
//                 of the shares of the faults on it) until repaired
// For a job j holding GPUs g and domains d (synchronous training waits for its slowest member):
//   clock_j  = min(1, min{ c_g : g held by j })      nvlink_j = min(1, min{ n_d : d held by j })
// Engine-free; the owners come from the caller (the allocator).
#pragma once

#include "models/hardware/layout.hpp"

#include <functional>
#include <map>

namespace dcsim::failure {

class Degradations {
public:
  /// Every GPU of `gpus` runs at `clock_frac` (a later gray fault replaces an earlier one's fraction).
  void slow(hardware::GpuRange gpus, double clock_frac);
  /// The GPUs run at full clock again; true when any of them was slow.
  bool clear_slow(hardware::GpuRange gpus);
  /// NVLink domain `domain` keeps `share` of its bandwidth (the least share when already degraded).
  void degrade_nvlink(int domain, double share);
  /// The domain's NVLink is whole again; true when it was degraded.
  bool restore_nvlink(int domain) { return nvlink_.erase(domain) > 0; }

  /// min(clock, clock_j), with `owner(g)` the job holding GPU g (-1: none); `clock` is the job's clock
  /// from elsewhere (throttling, caps).
  double job_clock(int job, const std::function<int(int)>& owner, double clock = 1.0) const;
  /// nvlink_j, with `domain_job(d)` the job holding domain d (-1: none).
  double job_nvlink(int job, const std::function<int(int)>& domain_job) const;

  std::size_t slow_gpus() const { return slow_.size(); }
  std::size_t degraded_domains() const { return nvlink_.size(); }

private:
  std::map<int, double> slow_;   ///< GPU -> clock fraction
  std::map<int, double> nvlink_; ///< domain -> bandwidth share
};

} // namespace dcsim::failure
