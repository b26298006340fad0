#include "models/ledger/cluster_ledger.hpp"

#include <stdexcept>

namespace dcsim::ledger {

ClusterLedger::ClusterLedger(int gpus, std::function<sched::Category(int)> category, sim::Tick start)
    : category_(std::move(category)), current_(static_cast<std::size_t>(gpus)), last_(start) {
  for (int g = 0; g < gpus; ++g) {
    const auto c = static_cast<std::uint8_t>(category_(g));
    current_[static_cast<std::size_t>(g)] = c;
    ++count_[c];
  }
}

void ClusterLedger::advance(sim::Tick now) {
  if (now < last_) throw std::logic_error("ClusterLedger: time went backwards");
  const sim::Tick dt = now - last_;
  if (dt == 0) return;
  for (std::size_t c = 0; c < CATEGORIES; ++c)
    acc_[c] += static_cast<GpuTicks>(count_[c]) * dt;
  last_ = now;
}

void ClusterLedger::touch(int gpu, sim::Tick now) {
  const auto c = static_cast<std::uint8_t>(category_(gpu));
  auto& cur = current_[static_cast<std::size_t>(gpu)];
  if (c == cur) return;
  advance(now);
  --count_[cur];
  ++count_[c];
  cur = c;
}

void ClusterLedger::finish(sim::Tick now) { advance(now); }

GpuTicks ClusterLedger::total() const {
  GpuTicks sum = 0;
  for (auto a : acc_)
    sum += a;
  return sum;
}

double to_gpu_hours(GpuTicks t) {
  return static_cast<double>(t) / (static_cast<double>(sim::TICKS_PER_S) * 3600.0);
}

} // namespace dcsim::ledger
