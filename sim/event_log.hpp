// A sink for the discrete events a simulation reports (events.csv).
//
// Models append records; whoever composes the run decides where they go. Disabled logs drop records
// cheaply so that large runs need not keep them.
#pragma once

#include "sim/units.hpp"

#include <string>
#include <vector>

namespace dcsim::sim {

struct EventRecord {
  Tick time = 0;
  std::string kind;      ///< e.g. "failure", "detection", "checkpoint"
  std::string component; ///< hierarchical name, e.g. "rack0003/tray07/gpu2"
  std::string scope;     ///< e.g. "gpu", "rack", "job"
  std::string job;       ///< job concerned, empty when none
  std::string detail;    ///< free text: cause, durations
};

class EventLog {
public:
  explicit EventLog(bool enabled = true) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  void add(EventRecord record) {
    if (enabled_) records_.push_back(std::move(record));
  }
  const std::vector<EventRecord>& records() const { return records_; }

private:
  bool enabled_;
  std::vector<EventRecord> records_;
};

} // namespace dcsim::sim
