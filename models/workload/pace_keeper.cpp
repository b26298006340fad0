#include "models/workload/pace_keeper.hpp"

#include <algorithm>

namespace dcsim::workload {

PaceKeeper::PaceKeeper(Site& site, const sim::EventQueue& queue, std::size_t jobs, double reroute_s,
                       bool ecmp_hash)
    : site_(&site), queue_(&queue), reroute_s_(reroute_s), ecmp_hash_(ecmp_hash), jobs_(jobs) {}

void PaceKeeper::add(int index, TrainingJob& job, std::unique_ptr<JobPace> pace) {
  Entry& e = entry(index);
  e.job = &job;
  e.pace = std::move(pace);
}

void PaceKeeper::share() {
  std::vector<int> on;
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const int index = static_cast<int>(j);
    if (!jobs_[j].job || !on_fabric(index)) continue;
    if (site_->at_full_size(index) && conditions(index).bw > 0)
      on.push_back(index);
    else
      sharing_->remove(index);
  }
  // A job alone keeps its isolated pace (in the utilisation only), unless hashing slows it or a
  // converged drain in flight couples it with its own hops.
  const bool couple = on.size() >= 2 || ecmp_hash_ || site_->storage_busy();
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const int index = static_cast<int>(j);
    if (std::find(on.begin(), on.end(), index) != on.end())
      sharing_->place(index, *jobs_[j].pace, conditions(index), [this, index] { return site_->gpus(index); },
                      couple);
    else if (jobs_[j].job && on_fabric(index))
      sharing_->remove(index);
  }
  sharing_->resolve();
  sharing_->record(sim::to_seconds(queue_->now()));
  site_->fabric_resolved();
}

void PaceKeeper::update(bool stall) {
  if (sharing_) share();
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    Entry& e = jobs_[j];
    if (!e.job) continue;
    Pace p = conditions(static_cast<int>(j));
    if (sharing_) p.shared = sharing_->factors(static_cast<int>(j));
    if (p.bw <= 0) continue; // cut off: interrupted, not slowed
    record_step(e, p);
    if (p == e.set_for) continue;
    if (stall && p.bw < e.set_for.bw) e.job->stall(sim::to_ticks(reroute_s_));
    e.set_for = p;
    e.job->set_slowdown(std::max(1.0, e.pace->slowdown(p)));
  }
}

void PaceKeeper::record_step(Entry& e, const Pace& p) {
  if (e.recorded && *e.recorded == p) return;
  e.recorded = p;
  const JobPace::StepTimes shared = e.pace->step_times(p);
  Pace alone = p;
  alone.shared = {1, 1, 1, 1, 1, 1};
  const double alone_s = alone == p ? shared.step_s : e.pace->step_times(alone).step_s;
  e.step.set(queue_->now(), shared.step_s, alone_s, shared.comm_s);
}

void PaceKeeper::finish(sim::Tick end) {
  for (auto& e : jobs_)
    e.step.finish(end);
}

} // namespace dcsim::workload
