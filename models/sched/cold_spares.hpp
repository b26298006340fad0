// Cold spares brought in one at a time (/operations, cold spare keys): when a recovery finds no warm
// spare left, the replica asks for a cold one; a powered-off spare domain is switched on and joins the
// warm pool cold_swap_h later (Allocator::activate_cold), and `activated` runs (returned capacity). While
// one is on its way further requests change nothing, and nothing is asked when no cold spare is left:
// at most one activation per cold_swap_h, never more than the cold domains.
#pragma once

#include "models/sched/allocator.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <functional>

namespace dcsim::sched {

class ColdSpares {
public:
  ColdSpares(Allocator& alloc, sim::EventQueue& queue, sim::EventLog& log, double swap_h,
             std::function<void()> activated);
  /// No warm spare is left: start bringing a cold one in (an event cold_spare_requested), unless one is
  /// already on its way or none is left.
  void request();
  int pending() const { return pending_; }
  int activations() const { return activations_; }

private:
  Allocator* alloc_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  double swap_h_;
  std::function<void()> activated_;
  int pending_ = 0;
  int activations_ = 0;
};

} // namespace dcsim::sched
