// The one sink for what a simulation reports over time: discrete events (events.csv) and gauge samples
// (timeseries.csv).
//
// Models append records; whoever composes the run decides where they go. A disabled log drops events
// cheaply so that large runs need not keep them; samples are kept whenever a part takes them (each
// part samples only when its sampling interval is set).
#pragma once

#include "sim/name.hpp"
#include "sim/units.hpp"

#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::sim {

struct EventRecord {
  Tick time = 0;
  Name kind;          ///< e.g. "failure", "detection", "checkpoint"
  Name component;     ///< hierarchical name, e.g. "rack0003/tray07/gpu2"
  Name scope;         ///< e.g. "gpu", "rack", "job"
  Name job;           ///< job concerned, empty when none
  std::string detail; ///< free text: cause, durations
};

/// One reading of a gauge.
struct Sample {
  Tick time = 0;
  Name entity; ///< "cluster", a job, a loop or a rack
  Name gauge;
  double value = 0;
};

/// Appends `value` as fmt's "{:.3f}" writes it (the same bytes), without fmt's parsing and its general
/// float path in the common case: a non-negative value under 10^6 not within 10^-6 of a rounding tie
/// (the product by 1,000 is then exact enough to round like the exact binary value); otherwise fmt.
void append_fixed3(std::string& out, double value);

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
  /// Hands the records over ordered by date, leaving the log empty; records of one date keep the order
  /// in which they were logged (the order of a stable sort by date). Records arrive mostly in date order
  /// (a part logs a record after the fact now and then): the longest-prefix run in order is kept where
  /// it is, the k records logged late are sorted alone and merged in, O(n + k log k) instead of
  /// O(n log n), and the log's blocks are freed as their records move out.
  std::vector<EventRecord> take_in_time_order();

  void sample(Sample s) { samples_.push_back(std::move(s)); }
  /// Room for `more` samples to come (a run's samples are known in advance: no reallocation of ~10^6).
  void reserve_samples(std::size_t more) { samples_.reserve(samples_.size() + more); }
  const std::vector<Sample>& samples() const { return samples_; }
  /// Hands the samples over, in the order they were taken.
  std::vector<Sample> take_samples() { return std::exchange(samples_, {}); }

private:
  bool enabled_;
  std::deque<EventRecord> records_;
  std::vector<Sample> samples_;
};

} // namespace dcsim::sim
