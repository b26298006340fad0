// The paces of a replica's training jobs: each job's slowdown, set again whenever the state of what it
// runs on changes, and its step records (shared and alone) that follow from the same state.
//
// update(stall): for each training job in scenario order, its conditions now (Site::conditions: the
//   least scale-out bandwidth share B, its leaves' share and placement class, the clock f, the NVLink
//   share n: fabric tracker, degradations, facility) and, with a shared fabric, the sharing factor of
//   each of its axes. A job cut off (B = 0) is interrupted elsewhere, not slowed: nothing changes for it.
//   Otherwise its step is recorded, and when the state differs from the one its slowdown was set for,
//   the job runs at max(1, JobPace::slowdown(state)) from now on (TrainingJob::set_slowdown). With
//   `stall` (a fabric element failed), a job whose B fell first makes no progress for reroute_s
//   (TrainingJob::stall: traffic rerouting around the fault).
// share(): with a shared fabric (workload/fabric_sharing.hpp), the jobs on it that hold their full GPUs
//   and are not cut off send their traffic to it; the others leave it. Jobs are coupled (enter the shared
//   max-min solve) when two or more are on it, when ECMP hashing slows even a job alone, or while
//   converged storage traffic is in flight; else each keeps its isolated pace and only the links'
//   utilisation sees it. Then the network is re-solved, the utilisation's interval closed at now, and
//   the site told (converged storage hops re-time to what their flows get).
// Step records (workload/step_record.hpp): at each new state, the step shared (the state as it is), the
//   step alone (the same state with every sharing factor 1) and the shared step's exposed communication,
//   s, from JobPace::step_times; they feed step_alone_s, step_shared_s, fabric_slowdown_frac and
//   exposed_comm_frac.
#pragma once

#include "models/workload/fabric_sharing.hpp"
#include "models/workload/job_pace.hpp"
#include "models/workload/step_record.hpp"
#include "models/workload/training_job.hpp"
#include "sim/event_queue.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace dcsim::workload {

class PaceKeeper {
public:
  /// What the keeper reads of the replica about a job as placed now, and what it tells it.
  class Site {
  public:
    virtual ~Site() = default;
    /// The job's conditions now, sharing factors left at 1. `last`: the state its slowdown was last set
    /// for (a model job below its full size keeps that placement class).
    virtual Pace conditions(int job, const JobPace& pace, const Pace& last) const = 0;
    /// The job holds every GPU its spec asks for.
    virtual bool at_full_size(int job) const = 0;
    /// The job's GPUs in rank order.
    virtual std::vector<int> gpus(int job) const = 0;
    /// Converged storage traffic is in flight on the shared fabric.
    virtual bool storage_busy() const = 0;
    /// The shared fabric was re-solved.
    virtual void fabric_resolved() = 0;
  };

  /// `jobs`: every workload (training jobs and services, scenario order); `reroute_s`: a stall's length;
  /// `ecmp_hash`: flows are pinned by hashing (a job alone on the fabric can be slowed).
  PaceKeeper(Site& site, const sim::EventQueue& queue, std::size_t jobs, double reroute_s, bool ecmp_hash);

  /// Training job `index` paced by `pace`.
  void add(int index, TrainingJob& job, std::unique_ptr<JobPace> pace);
  /// The jobs on a fabric share it from now on.
  void set_sharing(std::unique_ptr<FabricSharing> sharing) { sharing_ = std::move(sharing); }
  FabricSharing* sharing() { return sharing_.get(); }
  bool on_fabric(int index) const { return entry(index).pace && entry(index).pace->on_fabric(); }

  void update(bool stall);
  void share();
  /// Job `index` starts (true) or stops training now (its step record's weight).
  void training_changed(int index, bool on) { entry(index).step.training(queue_->now(), on); }
  const StepRecord& step(int index) const { return entry(index).step; }
  /// Closes every step record at `end`.
  void finish(sim::Tick end);

private:
  struct Entry {
    TrainingJob* job = nullptr;
    std::unique_ptr<JobPace> pace;
    Pace set_for;                  ///< the state the job's slowdown was set for
    std::optional<Pace> recorded;  ///< the state its step record was set for
    StepRecord step;
  };
  Site* site_;
  const sim::EventQueue* queue_;
  double reroute_s_;
  bool ecmp_hash_;
  std::vector<Entry> jobs_;
  std::unique_ptr<FabricSharing> sharing_;

  Entry& entry(int index) { return jobs_.at(static_cast<std::size_t>(index)); }
  const Entry& entry(int index) const { return jobs_.at(static_cast<std::size_t>(index)); }
  Pace conditions(int index) const { return site_->conditions(index, *entry(index).pace, entry(index).set_for); }
  void record_step(Entry& e, const Pace& p);
};

} // namespace dcsim::workload
