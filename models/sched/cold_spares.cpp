#include "models/sched/cold_spares.hpp"

#include "sim/units.hpp"

#include <fmt/format.h>

#include <utility>

namespace dcsim::sched {

ColdSpares::ColdSpares(Allocator& alloc, sim::EventQueue& queue, sim::EventLog& log, double swap_h,
                       std::function<void()> activated)
    : alloc_(&alloc), queue_(&queue), log_(&log), swap_h_(swap_h), activated_(std::move(activated)) {}

void ColdSpares::request() {
  if (pending_ > 0 || alloc_->cold_domains() - pending_ <= 0) return;
  ++pending_;
  log_->add({queue_->now(), "cold_spare_requested", "", "domain", "", fmt::format("{} h", swap_h_)});
  queue_->after(sim::hours_to_ticks(swap_h_), [this] {
    --pending_;
    if (alloc_->activate_cold()) {
      ++activations_;
      if (activated_) activated_();
    }
  });
}

} // namespace dcsim::sched
