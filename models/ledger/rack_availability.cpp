#include "models/ledger/rack_availability.hpp"

#include <stdexcept>

namespace dcsim::ledger {

RackAvailability::RackAvailability(int racks)
    : down_(static_cast<std::size_t>(racks), 0), since_(static_cast<std::size_t>(racks), 0),
      ticks_(static_cast<std::size_t>(racks), 0), failures_(static_cast<std::size_t>(racks), 0) {}

void RackAvailability::on_health_change(int rack, bool up, sim::Tick now) {
  const auto r = static_cast<std::size_t>(rack);
  ticks_[r] += static_cast<GpuTicks>(down_[r]) * (now - since_[r]);
  since_[r] = now;
  down_[r] += up ? -1 : 1;
  if (down_[r] < 0) throw std::logic_error("RackAvailability: a GPU came back that was not down");
}

void RackAvailability::count_failure(int first_rack, int last_rack) {
  for (int r = first_rack; r <= last_rack; ++r)
    ++failures_[static_cast<std::size_t>(r)];
}

GpuTicks RackAvailability::down_ticks(int rack, sim::Tick now) const {
  const auto r = static_cast<std::size_t>(rack);
  return ticks_[r] + static_cast<GpuTicks>(down_[r]) * (now - since_[r]);
}

std::vector<double> RackAvailability::down_gpu_h(sim::Tick end) const {
  std::vector<double> out;
  out.reserve(down_.size());
  for (std::size_t r = 0; r < down_.size(); ++r)
    out.push_back(to_gpu_hours(down_ticks(static_cast<int>(r), end)));
  return out;
}

} // namespace dcsim::ledger
