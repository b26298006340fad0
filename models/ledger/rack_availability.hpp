// Per-rack availability for racks.csv: each rack's down GPU-time and the failures that struck it.
//
// A rack's down GPU count d_r(t) changes only when one of its GPUs changes health; its down GPU-time
//   D_r = ∫ d_r(t) dt   (integer GPU·µs)
// is integrated at those changes, so the cost is O(1) per health change and nothing per time step.
// availability_frac = 1 − D_r / (GPUs per rack × duration) is computed by the outputs.
// A failure counts once on every rack its GPUs span (a rack-scope failure once, a tray once).
#pragma once

#include "models/ledger/cluster_ledger.hpp"
#include "sim/units.hpp"

#include <cstdint>
#include <vector>

namespace dcsim::ledger {

class RackAvailability {
public:
  explicit RackAvailability(int racks);

  /// A GPU of `rack` went down (up = false) or came back (up = true) at `now`.
  void on_health_change(int rack, bool up, sim::Tick now);
  /// A failure struck GPUs of racks first_rack..last_rack (inclusive).
  void count_failure(int first_rack, int last_rack);

  /// Down GPUs of a rack now.
  int down(int rack) const { return down_[static_cast<std::size_t>(rack)]; }
  /// Down GPU-time of a rack up to `now` (not after the last change: pass the current date).
  GpuTicks down_ticks(int rack, sim::Tick now) const;
  /// Down GPU-hours of every rack over [0, end).
  std::vector<double> down_gpu_h(sim::Tick end) const;
  const std::vector<std::uint64_t>& failures() const { return failures_; }

private:
  std::vector<int> down_;
  std::vector<sim::Tick> since_;
  std::vector<GpuTicks> ticks_;
  std::vector<std::uint64_t> failures_;
};

} // namespace dcsim::ledger
