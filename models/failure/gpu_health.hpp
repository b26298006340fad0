// Which GPUs are down, counting overlapping failures.
//
// A GPU is down while at least one failure covering it (of any scope) is unrepaired. Transitions
// (up -> down, down -> up) are reported to a hook, which the composition uses to keep the allocator's
// domain counts and the cluster ledger current.
#pragma once

#include "models/hardware/layout.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace dcsim::failure {

class GpuHealth {
public:
  using Hook = std::function<void(int gpu, bool up)>;

  explicit GpuHealth(int gpus) : down_count_(static_cast<std::size_t>(gpus), 0) {}

  void set_transition_hook(Hook hook) { hook_ = std::move(hook); }
  /// One more failure covers each GPU of the range.
  void fail(hardware::GpuRange range);
  /// One failure covering each GPU of the range is repaired.
  void repair(hardware::GpuRange range);

  bool up(int gpu) const { return down_count_[static_cast<std::size_t>(gpu)] == 0; }
  bool all_up(hardware::GpuRange range) const;
  int down_gpus() const { return down_gpus_; }
  int gpus() const { return static_cast<int>(down_count_.size()); }

private:
  std::vector<std::uint16_t> down_count_;
  int down_gpus_ = 0;
  Hook hook_;
};

} // namespace dcsim::failure
