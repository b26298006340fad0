// The job scheduler: arrivals, priorities, topology-aware placement, preemption and elastic resizing.
//
// Jobs arrive (arrival_h) and queue. Placement takes whole NVLink domains (racks for nvl72, servers for
// hgx) so that tensor/expert-parallel groups stay inside one domain and a job's GPU i of every rack sits
// on the same rail (Allocator::place). Queued jobs are considered by priority (higher first), then
// arrival, then scenario order:
//   1. enough free domains: the job is placed at full size;
//   2. an elastic job (min_gpus_frac < 1) is placed on what is free if that reaches its floor, and grows
//      back at a checkpoint when domains free up;
//   3. otherwise running jobs of lower priority are preempted, lowest priority and latest arrival first,
//      until the job fits: each stops at its next checkpoint (no work lost), releases its GPUs and queues
//      again; the job is placed when they are free;
//   4. otherwise the job waits, and lower-priority jobs that fit in the free domains are placed behind
//      it (backfill).
// A job that completes its work releases its GPUs. Lending to inference (SUNK, sched side): elastic
// training jobs below the service's priority give up domains at their next checkpoint (reclaim).
// Fragmentation (timeseries): healthy free GPUs stranded in domains that cannot host a full share,
// over all healthy free GPUs outside the spare pool.
#pragma once

#include "models/hardware/layout.hpp"
#include "models/sched/allocator.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace dcsim::sched {

/// What the scheduler needs of a job (the composition binds these to the job).
struct JobControl {
  std::function<void(int gpus)> place;                      ///< allocated: the job (re)starts on `gpus`
  std::function<void(std::function<void()>)> request_stop;  ///< stop at the next checkpoint, then call back
  std::function<void()> release;                            ///< its GPUs were taken back (it is stopped)
  std::function<void(int gpus)> resize;                     ///< stopped: its allocation now has `gpus`
};

struct JobRequest {
  std::string name;
  int priority = 0;
  sim::Tick arrival = 0;
  int gpus = 0;     ///< asked
  int min_gpus = 0; ///< elastic floor; = gpus when not elastic
  /// Holds domains the scheduler does not manage (an inference service takes and returns its own): never
  /// queued, placed, preempted or asked to lend.
  bool external = false;
  JobControl control;
};

class Scheduler {
public:
  Scheduler(const hardware::Layout& layout, Allocator& alloc, sim::EventQueue& queue, sim::EventLog& log);

  /// Registers a job; its id's value is its allocator job index.
  JobId add(JobRequest request);
  /// Schedules the arrivals (jobs arriving at 0 are placed at once, in order).
  void start();
  /// Capacity came back (a repair, a release): place queued jobs, grow shrunk elastic ones.
  void capacity_changed();
  /// A job completed its work: its GPUs are released.
  void completed(JobId job);
  /// Asks elastic running jobs of priority below `priority` to give up to `domains` domains at their
  /// next checkpoints; `got(n)` is called as each batch of n domains becomes free (idle). Returns how
  /// many domains were promised (fewer when the donors' slack is short).
  int reclaim(int domains, int priority, std::function<void(int domains)> got);

  int preemptions() const { return preemptions_; }
  /// Jobs that have arrived and wait for GPUs.
  int queued() const { return static_cast<int>(std::count(state_.begin(), state_.end(), State::QUEUED)); }
  bool running(JobId job) const { return state_[job.index()] == State::RUNNING; }

private:
  /// PENDING: not arrived (or external); PREEMPTING: stopping to give its domains back; STOPPING: stopping
  /// to be resized.
  enum class State { PENDING, QUEUED, RUNNING, PREEMPTING, STOPPING, DONE };

  const hardware::Layout* layout_;
  Allocator* alloc_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  std::vector<JobRequest> jobs_;
  std::vector<State> state_;
  bool scheduling_ = false;
  bool again_ = false;
  bool arrivals_pending_ = false;
  int preemptions_ = 0;

  int domains_for(int gpus) const;
  void schedule();
  void arrive(int job);
  void preempt(int job);
  void grow(int job);
  void note(const char* kind, int job, std::string detail = {});
};

} // namespace dcsim::sched
