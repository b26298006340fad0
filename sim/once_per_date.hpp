// A coalescer: many requests at one simulated date run one action, once, at that date.
//
// Owns one flag and nothing else. The first request() at a date schedules the action on the queue with
// zero delay (so it runs after the events already queued at that date, in the queue's FIFO order);
// further requests before it runs add nothing. Once it has run, the next request schedules it again,
// even at the same date. Domain-free: the replica uses it to recount its services once per date however
// many of their GPUs change health at that date.
#pragma once

#include "sim/event_queue.hpp"

#include <functional>

namespace dcsim::sim {

class OncePerDate {
public:
  OncePerDate(EventQueue& queue, std::function<void()> action);

  /// Runs the action once, at the current date, after the events already queued for it.
  void request();
  /// Whether a request waits to run.
  bool due() const { return due_; }

private:
  EventQueue* queue_;
  std::function<void()> action_;
  bool due_ = false;
};

} // namespace dcsim::sim
