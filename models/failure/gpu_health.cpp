#include "models/failure/gpu_health.hpp"

#include <stdexcept>

namespace dcsim::failure {

void GpuHealth::fail(hardware::GpuRange range) {
  for (int g = range.first; g < range.end(); ++g) {
    auto& c = down_count_[static_cast<std::size_t>(g)];
    if (c == UINT16_MAX) throw std::logic_error("GpuHealth: too many overlapping failures");
    if (c++ == 0) {
      ++down_gpus_;
      if (hook_) hook_(g, false);
    }
  }
}

void GpuHealth::repair(hardware::GpuRange range) {
  for (int g = range.first; g < range.end(); ++g) {
    auto& c = down_count_[static_cast<std::size_t>(g)];
    if (c == 0) throw std::logic_error("GpuHealth: repair of a GPU that is up");
    if (--c == 0) {
      --down_gpus_;
      if (hook_) hook_(g, true);
    }
  }
}

bool GpuHealth::all_up(hardware::GpuRange range) const {
  for (int g = range.first; g < range.end(); ++g)
    if (down_count_[static_cast<std::size_t>(g)] != 0) return false;
  return true;
}

} // namespace dcsim::failure
