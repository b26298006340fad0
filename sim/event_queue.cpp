#include "sim/event_queue.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace dcsim::sim {

EventQueue::EventId EventQueue::at(Tick date, Callback fn) {
  if (date < now_)
    throw std::logic_error("EventQueue::at: date " + std::to_string(date) + " is before now " +
                           std::to_string(now_));
  if (stopped_) return {}; // the run has ended: nothing more happens
  const Key key{date, next_seq_++};
  const bool new_head = events_.empty() || key < events_.begin()->first;
  events_.emplace(key, std::move(fn));
  if (new_head) notify_head();
  return EventId{key.first, key.second};
}

void EventQueue::cancel(EventId& id) {
  if (id.empty()) return;
  const Key key{id.date, id.seq};
  const bool was_head = !events_.empty() && events_.begin()->first == key;
  events_.erase(key);
  id = EventId{};
  if (was_head) notify_head();
}

void EventQueue::fire_due(Tick date) {
  now_ = date;
  while (!events_.empty() && events_.begin()->first.first <= date) {
    auto node = events_.extract(events_.begin());
    watch();
    ++events_run_;
    node.mapped()();
  }
  notify_head();
}

void EventQueue::watch() {
  if (now_ != date_of_count_) {
    date_of_count_ = now_;
    date_events_ = 0;
  }
  if (++date_events_ > watchdog_.max_events_at_one_date)
    throw NoProgress(fmt::format("{} events fired at t = {:.6f} s of simulated time without the clock moving",
                                 watchdog_.max_events_at_one_date, to_seconds(now_)));
  if (++window_events_ <= watchdog_.window_events) return;
  const Tick advance = now_ - window_start_;
  if (horizon_ > 0 && watchdog_.max_windows > 0 &&
      advance < horizon_ / static_cast<Tick>(watchdog_.max_windows))
    throw NoProgress(fmt::format(
        "{} events moved the clock only {:.6g} s (from t = {:.6f} s to {:.6f} s): at that pace the run's "
        "{:.6g} s of simulated time would take more than {:.3g} events",
        watchdog_.window_events, to_seconds(advance), to_seconds(window_start_), to_seconds(now_),
        to_seconds(horizon_), static_cast<double>(watchdog_.window_events) * static_cast<double>(watchdog_.max_windows)));
  window_events_ = 1;
  window_start_ = now_;
}

void EventQueue::run_until(Tick end) {
  set_horizon(end);
  while (!events_.empty() && events_.begin()->first.first <= end)
    fire_due(events_.begin()->first.first);
  if (end > now_ && !stopped_) now_ = end;
}

} // namespace dcsim::sim
