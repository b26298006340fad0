// A training job on its own event queue, for unit tests: 8 GPUs, step 1 s, compute 100 s between
// checkpoints, write 10 s, restart 50 s; its recover hook says the GPUs are up when `healthy`, and its
// ranks_up hook says whether none of the ranks asked is in `down`.
#pragma once

#include "models/workload/training_job.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dcsim::test {

using workload::JobTime;

struct Fixture {
  workload::JobSpec spec;
  workload::JobTiming timing;
  sim::EventQueue q;
  sim::EventLog log;
  bool healthy = true;
  sim::Tick recover_extra = 0; ///< what each recovery adds (a warm spare's swap-in)
  std::set<int> down;          ///< ranks whose GPUs are down (ranks_up)
  /// Recovery swaps spares in for every down rank (clears `down`) and adds recover_extra only when it swapped.
  bool swap_down = false;
  std::unique_ptr<workload::TrainingJob> job;

  Fixture() {
    spec.name = "j";
    spec.gpus = 8;
    timing.step = sim::to_ticks(1);
    timing.interval = sim::to_ticks(100);
    timing.write = sim::to_ticks(10);
    timing.restart = sim::to_ticks(50);
  }
  void start(std::function<void(bool)> training_changed = {}, std::function<void()> stopped = {}) {
    workload::TrainingJob::Hooks hooks{[this](sim::Tick& extra) {
                                         if (!swap_down || !down.empty()) extra += recover_extra;
                                         if (swap_down) down.clear();
                                         return healthy;
                                       },
                                       [](int) { return std::string("m"); }, std::move(training_changed),
                                       std::move(stopped)};
    hooks.ranks_up = [this](const std::vector<int>& ranks) {
      std::vector<bool> up;
      for (int r : ranks)
        up.push_back(down.count(r) == 0);
      return up;
    };
    job = std::make_unique<workload::TrainingJob>(spec, timing, 1, q, log, hooks);
    job->start();
  }
  void at(double t_s, std::function<void()> fn) { q.at(sim::to_ticks(t_s), std::move(fn)); }
  void finish_at(double t_s) {
    q.run_until(sim::to_ticks(t_s));
    job->finish();
  }
  /// Seconds in a state (the job holds its 8 GPUs throughout these tests).
  double s(JobTime state) const {
    return static_cast<double>(job->gpu_time()[static_cast<std::size_t>(state)] / spec.gpus) / 1e6;
  }
  void require_conserved() const {
    workload::GpuTicks sum = 0;
    for (auto t : job->gpu_time())
      sum += t;
    REQUIRE(sum == static_cast<workload::GpuTicks>(job->wall()) * spec.gpus);
    // Loss by cause: every state's time is split over causes exactly (loss_cause.hpp).
    for (int s = 0; s < workload::JOB_TIME_STATES; ++s) {
      workload::GpuTicks by_cause = 0;
      for (int c = 0; c < job->causes(); ++c)
        by_cause += job->cause_time(static_cast<JobTime>(s), c);
      REQUIRE(by_cause == job->gpu_time()[static_cast<std::size_t>(s)]);
    }
  }
  /// Seconds in a state charged to `cause` (0: the fixture's one failure mode; 1 + k: mechanism k).
  double s(JobTime state, int cause) const {
    return static_cast<double>(job->cause_time(state, cause) / spec.gpus) / 1e6;
  }
};
} // namespace dcsim::test
