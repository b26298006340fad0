// The time series of a replica's gauges: each gauge registered once (entity, gauge name, how to read
// it), every gauge read together on each sampling date, in registration order (so the time series'
// row order is fixed by the order parts registered their gauges).
#pragma once

#include "models/ledger/replica_result.hpp"
#include "sim/event_log.hpp"
#include "sim/name.hpp"
#include "sim/units.hpp"

#include <functional>
#include <vector>

namespace dcsim::ledger {

class GaugeSampler {
public:
  using Read = std::function<double(sim::Tick now)>;

  void add(sim::Name entity, sim::Name gauge, Read read);
  /// Appends one sample of every gauge, dated `now`, to the run's log.
  void sample(sim::Tick now, sim::EventLog& out) const;
  std::size_t size() const { return gauges_.size(); }

private:
  struct Gauge {
    sim::Name entity, gauge;
    Read read;
  };
  std::vector<Gauge> gauges_;
};

} // namespace dcsim::ledger
