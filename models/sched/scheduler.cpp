#include "models/sched/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dcsim::sched {

Scheduler::Scheduler(const hardware::Layout& layout, Allocator& alloc, sim::EventQueue& queue, sim::EventLog& log)
    : layout_(&layout), alloc_(&alloc), queue_(&queue), log_(&log) {}

JobId Scheduler::add(JobRequest request) {
  jobs_.push_back(std::move(request));
  state_.push_back(State::PENDING);
  return JobId{static_cast<int>(jobs_.size()) - 1};
}

int Scheduler::domains_for(int gpus) const { return layout_->domains_for(gpus); }

void Scheduler::note(const char* kind, int job, std::string detail) {
  if (log_->enabled())
    log_->add({queue_->now(), kind, jobs_[static_cast<std::size_t>(job)].name, "job",
               jobs_[static_cast<std::size_t>(job)].name, std::move(detail)});
}

void Scheduler::start() {
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].external) continue;
    if (jobs_[j].arrival <= queue_->now())
      state_[j] = State::QUEUED;
    else
      queue_->at(jobs_[j].arrival, [this, j] { arrive(static_cast<int>(j)); });
  }
  schedule();
}

void Scheduler::arrive(int job) {
  state_[static_cast<std::size_t>(job)] = State::QUEUED;
  note("arrival", job);
  if (arrivals_pending_) return;
  arrivals_pending_ = true; // jobs arriving at the same date are scheduled together, by priority
  queue_->after(0, [this] {
    arrivals_pending_ = false;
    schedule();
  });
}

void Scheduler::capacity_changed() { schedule(); }

void Scheduler::completed(JobId job) {
  alloc_->release(job.value());
  state_[job.index()] = State::DONE;
  schedule();
}

void Scheduler::schedule() {
  if (scheduling_) { // a placement's callbacks asked again: one more pass after this one
    again_ = true;
    return;
  }
  scheduling_ = true;
  do {
    again_ = false;
    std::vector<int> order;
    for (std::size_t j = 0; j < jobs_.size(); ++j)
      if (state_[j] == State::QUEUED) order.push_back(static_cast<int>(j));
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
      const auto& x = jobs_[static_cast<std::size_t>(a)];
      const auto& y = jobs_[static_cast<std::size_t>(b)];
      if (x.priority != y.priority) return x.priority > y.priority;
      return x.arrival < y.arrival;
    });
    const int usable = layout_->domain_usable_gpus();
    int reserved = 0; // free domains promised to a blocked job of higher priority: backfill cannot use them
    for (int j : order) {
      auto& req = jobs_[static_cast<std::size_t>(j)];
      const int need = domains_for(req.gpus);
      const int floor = domains_for(req.min_gpus);
      const int free = alloc_->free_domains() - reserved;
      int gpus = 0;
      if (free >= need)
        gpus = req.gpus;
      else if (free >= floor && floor < need)
        gpus = free * usable;
      if (gpus > 0 && alloc_->place(j, gpus)) {
        state_[static_cast<std::size_t>(j)] = State::RUNNING;
        note("placed", j, fmt::format("{} of {} GPUs", gpus, req.gpus));
        req.control.place(gpus);
        continue;
      }
      if (reserved > 0) continue; // behind a blocked job: backfill only
      // Preemption: lower-priority running jobs, lowest priority and latest arrival first, until the
      // free domains plus those already being given back reach the job's floor.
      int reachable = std::max(0, free);
      for (std::size_t v = 0; v < jobs_.size(); ++v)
        if (state_[v] == State::PREEMPTING) reachable += alloc_->job_domain_count(static_cast<int>(v));
      std::vector<int> victims;
      for (std::size_t v = 0; v < jobs_.size(); ++v)
        if (state_[v] == State::RUNNING && jobs_[v].priority < req.priority) victims.push_back(static_cast<int>(v));
      std::stable_sort(victims.begin(), victims.end(), [this](int a, int b) {
        const auto& x = jobs_[static_cast<std::size_t>(a)];
        const auto& y = jobs_[static_cast<std::size_t>(b)];
        if (x.priority != y.priority) return x.priority < y.priority;
        return x.arrival > y.arrival;
      });
      std::vector<int> chosen;
      for (int v : victims) {
        if (reachable >= floor) break;
        reachable += alloc_->job_domain_count(v);
        chosen.push_back(v);
      }
      if (reachable >= floor)
        for (int v : chosen)
          preempt(v);
      reserved = std::max(0, std::min(free, need)); // it will take these when the rest is free
    }
  } while (again_);
  scheduling_ = false;
  // Elastic jobs below their size grow into domains left over once nothing waits.
  for (std::size_t j = 0; j < jobs_.size(); ++j)
    if (state_[j] == State::QUEUED) return;
  int budget = alloc_->free_domains(); // each grower is promised its missing domains, in order
  for (std::size_t j = 0; j < jobs_.size() && budget > 0; ++j)
    if (state_[j] == State::RUNNING && alloc_->job_gpu_count(static_cast<int>(j)) < jobs_[j].gpus) {
      budget -= domains_for(jobs_[j].gpus) - alloc_->job_domain_count(static_cast<int>(j));
      grow(static_cast<int>(j));
    }
}

void Scheduler::preempt(int job) {
  state_[static_cast<std::size_t>(job)] = State::PREEMPTING;
  ++preemptions_;
  note("preempted", job);
  jobs_[static_cast<std::size_t>(job)].control.request_stop([this, job] {
    if (state_[static_cast<std::size_t>(job)] == State::DONE) return; // it completed first
    alloc_->release(job);
    state_[static_cast<std::size_t>(job)] = State::QUEUED;
    jobs_[static_cast<std::size_t>(job)].control.release();
    schedule();
  });
}

void Scheduler::grow(int job) {
  state_[static_cast<std::size_t>(job)] = State::STOPPING;
  jobs_[static_cast<std::size_t>(job)].control.request_stop([this, job] {
    if (state_[static_cast<std::size_t>(job)] == State::DONE) return; // it completed first
    auto& req = jobs_[static_cast<std::size_t>(job)];
    const int missing = domains_for(req.gpus) - alloc_->job_domain_count(job);
    const int add = std::min(missing, alloc_->free_domains());
    if (add > 0) alloc_->resize(job, add);
    state_[static_cast<std::size_t>(job)] = State::RUNNING;
    const int gpus = std::min(req.gpus, alloc_->job_gpu_count(job));
    note("resized", job, fmt::format("{} of {} GPUs", gpus, req.gpus));
    req.control.resize(gpus);
  });
}

int Scheduler::reclaim(int domains, int priority, std::function<void(int)> got) {
  const int asked = domains;
  std::vector<int> donors;
  for (std::size_t j = 0; j < jobs_.size(); ++j)
    if (state_[j] == State::RUNNING && jobs_[j].priority < priority &&
        alloc_->job_domain_count(static_cast<int>(j)) > domains_for(jobs_[j].min_gpus))
      donors.push_back(static_cast<int>(j));
  std::stable_sort(donors.begin(), donors.end(), [this](int a, int b) {
    return jobs_[static_cast<std::size_t>(a)].priority < jobs_[static_cast<std::size_t>(b)].priority;
  });
  for (int j : donors) {
    if (domains <= 0) break;
    const int slack = alloc_->job_domain_count(j) - domains_for(jobs_[static_cast<std::size_t>(j)].min_gpus);
    const int take = std::min(slack, domains);
    domains -= take;
    state_[static_cast<std::size_t>(j)] = State::STOPPING;
    note("lending", j, fmt::format("{} domains", take));
    jobs_[static_cast<std::size_t>(j)].control.request_stop([this, j, take, got] {
      if (state_[static_cast<std::size_t>(j)] == State::DONE) { // it completed first: all its domains are free
        got(take);
        return;
      }
      alloc_->resize(j, -take);
      state_[static_cast<std::size_t>(j)] = State::RUNNING;
      jobs_[static_cast<std::size_t>(j)].control.resize(alloc_->job_gpu_count(j));
      got(take);
    });
  }
  return asked - domains;
}

} // namespace dcsim::sched
