#include "models/ledger/gauge_sampler.hpp"

namespace dcsim::ledger {

void GaugeSampler::add(sim::Name entity, sim::Name gauge, Read read) {
  gauges_.push_back({entity, gauge, std::move(read)});
}

void GaugeSampler::sample(sim::Tick now, sim::EventLog& out) const {
  for (const auto& g : gauges_)
    out.sample({now, g.entity, g.gauge, g.read(now)});
}

} // namespace dcsim::ledger
