#include "sim/event_queue.hpp"

#include <stdexcept>
#include <string>

namespace dcsim::sim {

EventQueue::EventId EventQueue::at(Tick date, Callback fn) {
  if (date < now_)
    throw std::logic_error("EventQueue::at: date " + std::to_string(date) + " is before now " +
                           std::to_string(now_));
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
    ++events_run_;
    node.mapped()();
  }
  notify_head();
}

void EventQueue::run_until(Tick end) {
  while (!events_.empty() && events_.begin()->first.first <= end)
    fire_due(events_.begin()->first.first);
  if (end > now_) now_ = end;
}

} // namespace dcsim::sim
