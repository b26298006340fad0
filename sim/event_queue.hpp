// The simulated-time event queue that every dcsim model schedules on.
//
// Models never call SimGrid's timers directly: they schedule callbacks here, at integer-microsecond
// dates. Events at the same date run in the order they were scheduled (FIFO by sequence number), so
// a replica's history is a pure function of its seeds. Two drivers advance the queue:
//   - `run_until()` pops events itself (engine-free unit tests of models);
//   - sim::Platform::run_until() fires them on a clock shared with SimGrid's engine, so that model
//     events and network activities interleave in date order (see sim/platform.hpp).
//
// Watchdog. A run whose events keep firing while its clock stands still (or crawls) would never end:
// the queue throws NoProgress when
//   - more than `max_events_at_one_date` events fire at one date, or
//   - a window of `window_events` events moves the clock by less than horizon / `max_windows` (at that
//     pace the run would need more than max_windows x window_events events), the horizon being the end
//     date given to the driver's run_until().
// Both bounds count events, never wall time, so a run trips (or not) whatever the machine and its load.
// With the defaults a run is stopped after at most a few million events (seconds), and a run that
// passes may still fire up to 10^9 events.
#pragma once

#include "sim/units.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

namespace dcsim::sim {

/// Thrown by EventQueue when a run cannot progress (see "Watchdog" above): a property of the input
/// (rates so high that simulated time stands still), not a bug.
class NoProgress : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class EventQueue {
public:
  using Callback = std::function<void()>;

  /// Identifies a scheduled event so that it can be cancelled; default-constructed ids are empty.
  struct EventId {
    Tick date = -1;
    std::uint64_t seq = 0;
    bool empty() const { return date < 0; }
  };

  struct Watchdog {
    std::uint64_t max_events_at_one_date = 1'000'000;
    std::uint64_t window_events = 1'000'000;
    std::uint64_t max_windows = 1'000;
  };

  Tick now() const { return now_; }
  /// Schedules `fn` at `date` (>= now). Returns its id (empty once stopped: it never runs).
  EventId at(Tick date, Callback fn);
  EventId after(Tick delay, Callback fn) { return at(now_ + delay, std::move(fn)); }
  /// Cancels a pending event; cancelling an empty, fired or already-cancelled id does nothing.
  void cancel(EventId& id);
  bool pending(const EventId& id) const { return !id.empty() && events_.count({id.date, id.seq}) != 0; }

  bool empty() const { return events_.empty(); }
  /// Ends the run at the current date: drops every pending event (the rest of this date's too) and
  /// ignores any scheduled later; the drivers' run_until() then returns with the clock here instead of
  /// at their end date.
  void stop() {
    events_.clear();
    stopped_ = true;
    notify_head();
  }
  bool stopped() const { return stopped_; }
  /// Date of the earliest pending event, or -1 when none is pending.
  Tick next_date() const { return events_.empty() ? -1 : events_.begin()->first.first; }

  /// Engine-free driver: runs every event dated <= end in order, then sets now to `end` (unless stopped).
  void run_until(Tick end);

  /// Runs every event dated `date` (now becomes `date`), including those they schedule at that date.
  /// Used by the SimGrid binding when its kernel timer fires.
  void fire_due(Tick date);

  /// Moves the clock forward to `date` without running anything (a driver reporting an activity
  /// completion that happened between events). Dates in the past are ignored.
  void advance_to(Tick date) {
    if (date > now_) now_ = date;
  }

  /// Called after any change of the earliest date (the SimGrid binding re-arms its timer here).
  void set_head_changed_hook(std::function<void()> hook) { head_changed_ = std::move(hook); }

  std::uint64_t events_run() const { return events_run_; }

  void set_watchdog(const Watchdog& watchdog) { watchdog_ = watchdog; }
  /// The end date of the run, against which the watchdog measures the clock's pace (drivers set it).
  void set_horizon(Tick end) { horizon_ = end; }

private:
  using Key = std::pair<Tick, std::uint64_t>;
  std::map<Key, Callback> events_;
  Tick now_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t events_run_ = 0;
  std::function<void()> head_changed_;
  Watchdog watchdog_;
  Tick horizon_ = 0;
  bool stopped_ = false;
  Tick date_of_count_ = -1;        ///< the date whose events date_events_ counts
  std::uint64_t date_events_ = 0;  ///< events fired at date_of_count_
  std::uint64_t window_events_ = 0;
  Tick window_start_ = 0;

  void watch(); ///< called before each event fires; throws NoProgress

  void notify_head() {
    if (head_changed_) head_changed_();
  }
};

} // namespace dcsim::sim
