#include "models/failure/degradations.hpp"

#include <algorithm>

namespace dcsim::failure {

void Degradations::slow(hardware::GpuRange gpus, double clock_frac) {
  for (int g = gpus.first; g < gpus.end(); ++g)
    slow_[g] = clock_frac;
}

bool Degradations::clear_slow(hardware::GpuRange gpus) {
  bool changed = false;
  for (int g = gpus.first; g < gpus.end(); ++g)
    changed |= slow_.erase(g) > 0;
  return changed;
}

void Degradations::degrade_nvlink(int domain, double share) {
  auto [it, fresh] = nvlink_.emplace(domain, share);
  if (!fresh) it->second = std::min(it->second, share);
}

double Degradations::job_clock(int job, const std::function<int(int)>& owner, double clock) const {
  for (const auto& [g, c] : slow_)
    if (owner(g) == job) clock = std::min(clock, c);
  return clock;
}

double Degradations::job_nvlink(int job, const std::function<int(int)>& domain_job) const {
  double share = 1.0;
  for (const auto& [d, n] : nvlink_)
    if (domain_job(d) == job) share = std::min(share, n);
  return share;
}

} // namespace dcsim::failure
