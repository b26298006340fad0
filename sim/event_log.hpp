// A sink for the discrete events a simulation reports (events.csv).
//
// Models append records; whoever composes the run decides where they go. Disabled logs drop records
// cheaply so that large runs need not keep them.
#pragma once

#include "sim/name.hpp"
#include "sim/units.hpp"

#include <deque>
#include <string>
#include <utility>

namespace dcsim::sim {

struct EventRecord {
  Tick time = 0;
  Name kind;          ///< e.g. "failure", "detection", "checkpoint"
  Name component;     ///< hierarchical name, e.g. "rack0003/tray07/gpu2"
  Name scope;         ///< e.g. "gpu", "rack", "job"
  Name job;           ///< job concerned, empty when none
  std::string detail; ///< free text: cause, durations
};

class EventLog {
public:
  explicit EventLog(bool enabled = true) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  void add(EventRecord record) {
    if (enabled_) records_.push_back(std::move(record));
  }
  /// A deque: appending never moves the records already there (logs reach 10^5-10^6 records).
  const std::deque<EventRecord>& records() const { return records_; }
  /// Hands the records over, leaving the log empty.
  std::deque<EventRecord> take() { return std::exchange(records_, {}); }

private:
  bool enabled_;
  std::deque<EventRecord> records_;
};

} // namespace dcsim::sim
