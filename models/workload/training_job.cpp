#include "models/workload/training_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace dcsim::workload {

std::string_view job_time_name(JobTime state) {
  switch (state) {
  case JobTime::PRODUCTIVE: return "productive";
  case JobTime::CHECKPOINT: return "checkpoint";
  case JobTime::REWORK: return "rework";
  case JobTime::DETECTION: return "detection";
  case JobTime::RESTART: return "restart";
  case JobTime::WAITING: return "waiting";
  case JobTime::DEGRADED: return "degraded";
  case JobTime::MAINTENANCE: return "maintenance";
  case JobTime::REDUCED_BATCH: return "reduced_batch";
  case JobTime::COUNT: break;
  }
  return "?";
}

TrainingJob::TrainingJob(const JobSpec& spec, JobTiming timing, int modes, sim::EventQueue& queue,
                         sim::EventLog& log, Hooks hooks)
    : spec_(&spec), name_(spec.name), timing_(timing), queue_(&queue), log_(&log), hooks_(std::move(hooks)),
      failures_by_mode_(static_cast<std::size_t>(modes), 0), interruptions_by_mode_(static_cast<std::size_t>(modes), 0) {
  if (timing_.interval <= 0 || timing_.step <= 0) throw std::logic_error("TrainingJob: interval and step must be > 0");
  remaining_ = timing_.interval;
  strategy_ = make_recovery_strategy(spec.recovery, *this);
  since_ = sim::hours_to_ticks(spec.arrival_h); // queued from its arrival on
  init_causes(modes);
  if (spec.work_h > 0) work_ = static_cast<GpuTicks>(sim::hours_to_ticks(spec.work_h)) * spec.gpus;
}

void TrainingJob::event(sim::Name kind, std::string detail, sim::Tick at) {
  if (!log_->enabled()) return;
  static const sim::Name job_scope("job");
  log_->add({at < 0 ? queue_->now() : at, kind, name_, job_scope, name_, std::move(detail)});
}

double TrainingJob::cycle_slowdown() const {
  const double share = strategy_->running_share();
  if (share == 1.0) return slowdown_;
  return slowdown_ / share;
}

sim::Tick TrainingJob::wall_of(sim::Tick progress) const {
  const double s = cycle_slowdown();
  if (s == 1.0) return progress;
  return static_cast<sim::Tick>(std::ceil(static_cast<double>(progress) * s));
}

void TrainingJob::run_phase(sim::Tick wall, sim::Tick& left) {
  // Progress rounds down, so a partial phase (wall < ⌈left·s⌉) never completes the phase early.
  sim::Tick progress = wall;
  const double s = cycle_slowdown();
  if (s != 1.0) progress = std::min(left, static_cast<sim::Tick>(std::floor(static_cast<double>(wall) / s)));
  pending_productive_ += progress;
  // With a share out, what the pace alone would have made beyond `progress` is the share out's.
  sim::Tick paced = progress;
  if (strategy_->running_share() < 1.0)
    paced = std::clamp(static_cast<sim::Tick>(std::floor(static_cast<double>(wall) / slowdown_)), progress, wall);
  pending_reduced_ += paced - progress;
  pending_degraded_ += wall - paced;
  left -= progress;
}

void TrainingJob::close_cycle(sim::Tick now) {
  // Phase arithmetic from the cycle's origin (see the header): the first write starts once the
  // remaining compute is done; after each write, a full interval of compute then another write.
  sim::Tick t = origin_;
  const sim::Tick write = timing_.write;
  bool first = true;
  for (;;) {
    if (remaining_ > 0) { // a run phase
      const sim::Tick need = wall_of(remaining_);
      if (now - t < need) {
        run_phase(now - t, remaining_);
        break;
      }
      run_phase(need, remaining_);
      remaining_ = 0;
      t += need;
    }
    // a write phase (possibly begun before the origin: pending_checkpoint_ of it is done)
    const sim::Tick left = write - pending_checkpoint_;
    if (now - t < left) {
      pending_checkpoint_ += now - t;
      break;
    }
    pending_checkpoint_ += left;
    t += left;
    commit_checkpoint(t);
    remaining_ = timing_.interval;
    if (first && !flows()) { // with storage flows every commit is an event of its own (arm_snapshot)
      first = false;
      // Every further cycle is identical: skip the whole ones arithmetically.
      const sim::Tick period = wall_of(timing_.interval) + write;
      const sim::Tick cycles = (now - t) / period;
      if (cycles > 0) {
        const sim::Tick run_wall = wall_of(timing_.interval);
        const sim::Tick productive = timing_.interval; // a full phase of ⌈τ·s⌉ makes τ of progress
        sim::Tick paced = productive; // as run_phase: the share out's, then the pace's
        if (strategy_->running_share() < 1.0)
          paced = std::clamp(static_cast<sim::Tick>(std::floor(static_cast<double>(run_wall) / slowdown_)),
                             productive, run_wall);
        static const sim::Name checkpoint("checkpoint");
        for (sim::Tick k = 1; k <= cycles; ++k) {
          if (log_->enabled()) event(checkpoint, {}, t + k * period);
        }
        add(JobTime::PRODUCTIVE, cycles * productive);
        add(JobTime::REDUCED_BATCH, cycles * (paced - productive));
        add(JobTime::DEGRADED, cycles * (run_wall - paced));
        add(JobTime::CHECKPOINT, cycles * write);
        checkpoints_ += static_cast<std::uint64_t>(cycles);
        t += cycles * period;
        last_commit_at_ = t;
        last_segment_ = {static_cast<GpuTicks>(productive) * gpus_, static_cast<GpuTicks>(run_wall - paced) * gpus_,
                         static_cast<GpuTicks>(write) * gpus_, static_cast<GpuTicks>(paced - productive) * gpus_};
      }
    }
  }
  origin_ = now;
}

void TrainingJob::close_current() {
  const sim::Tick now = queue_->now();
  if (now < since_) return; // before its arrival: nothing to account
  const sim::Tick dt = now - since_;
  if (state_ == State::QUEUED)
    queued_ += dt;
  else if (state_ != State::DONE)
    held_ += dt;
  switch (state_) {
  case State::CYCLE: close_cycle(now); break;
  case State::FINAL_WRITE: pending_checkpoint_ += dt; break;
  case State::STALL: pending_degraded_ += dt; break;
  case State::REFORM: add(reform_as_, dt); break;
  case State::RESTART:
    add(JobTime::RESTART, dt);
    account_restart(since_, now);
    break;
  case State::DETECTION: add(JobTime::DETECTION, dt); break;
  case State::WAITING: add(JobTime::WAITING, dt); break;
  case State::MAINTENANCE: add(JobTime::MAINTENANCE, dt); break;
  case State::STOPPED: add(JobTime::WAITING, dt); break;
  case State::QUEUED:
  case State::DONE: break;
  }
  since_ = now;
}

void TrainingJob::transition(State next) {
  close_current();
  queue_->cancel(timer_);
  queue_->cancel(stop_timer_);
  queue_->cancel(completion_timer_);
  queue_->cancel(snapshot_timer_);
  const bool was_training = training();
  state_ = next;
  if (hooks_.training_changed && was_training != training()) hooks_.training_changed(training());
}

void TrainingJob::place(int gpus) {
  if (state_ != State::QUEUED) throw std::logic_error("TrainingJob::place: the job is not queued");
  close_current();
  gpus_ = gpus;
  if (gpus != spec_->gpus) ++reallocations_; // placed below its full size (elastic)
  set_stop_cause(mechanism(started_ ? Mechanism::RESCHEDULED : Mechanism::LAUNCH));
  if (!started_) {
    started_ = true;
    if (timing_.planned_every > 0) queue_->after(timing_.planned_every, [this] { planned_tick(); });
  }
  start_restart(0);
}

void TrainingJob::release() {
  if (training()) throw std::logic_error("TrainingJob::release: stop the job first");
  transition(State::QUEUED);
  cause_of_[static_cast<std::size_t>(JobTime::REWORK)] = mechanism(Mechanism::RESCHEDULED);
  lose_pending(); // nothing when it stopped at a checkpoint
  remaining_ = timing_.interval;
  reset_strategy();
  undetected_.clear();
  gpus_ = 0;
  ++reallocations_;
  event("released");
  if (holds_ > 0 && hooks_.stopped) hooks_.stopped(); // a drain waiting for it: its work is saved, it left
}

void TrainingJob::resize(int gpus) {
  if (training()) throw std::logic_error("TrainingJob::resize: stop the job first");
  close_current(); // the time so far at the old size
  gpus_ = gpus;
  ++reallocations_;
  event("resized", std::to_string(gpus) + " GPUs");
}

sim::Tick TrainingJob::cycle_time_for(sim::Tick progress) const {
  sim::Tick t = origin_;
  sim::Tick rem = remaining_;
  if (rem == 0) { // in a write: it completes, then a full interval
    t += timing_.write - pending_checkpoint_;
    rem = timing_.interval;
  }
  if (progress <= rem) return t + wall_of(progress);
  t += wall_of(rem) + timing_.write;
  progress -= rem;
  const sim::Tick whole = (progress - 1) / timing_.interval; // complete cycles before the last, partial one
  t += whole * (wall_of(timing_.interval) + timing_.write);
  progress -= whole * timing_.interval;
  return t + wall_of(progress);
}

void TrainingJob::arm_completion() {
  queue_->cancel(completion_timer_);
  if (work_ == 0 || state_ != State::CYCLE || gpus_ <= 0) return;
  close_current(); // origin = now
  const GpuTicks done = time_[static_cast<std::size_t>(JobTime::PRODUCTIVE)] + static_cast<GpuTicks>(pending_productive_) * gpus_;
  if (done >= work_) {
    complete();
    return;
  }
  const auto left = static_cast<sim::Tick>((work_ - done + gpus_ - 1) / gpus_); // at the current size, rounded up
  completion_timer_ = queue_->at(cycle_time_for(left), [this] {
    completion_timer_ = {};
    close_current();
    complete();
  });
}

void TrainingJob::complete() {
  transition(State::DONE);
  commit_pending(); // the last steps complete the work: kept
  completed_at_ = queue_->now();
  gpus_ = 0;
  event("completed");
  if (completed_) completed_();
  serve_requests_later(); // it no longer trains: whoever waits for it to stop may go on
}

void TrainingJob::start_restart(sim::Tick extra) {
  transition(State::RESTART);
  remaining_ = timing_.interval;
  reset_strategy(); // recovered: every GPU is up, every part starts again
  static const sim::Name restart("restart"); // interned once: every recovery logs it
  event(restart);
  restart_began_ = queue_->now();
  const sim::Tick load = timing_.restart_parts ? next_load_ : 0;
  const sim::Tick init = after_failure_ && timing_.init_after_failure >= 0 ? timing_.init_after_failure : timing_.init;
  restart_ends_[0] = extra + (timing_.restart_parts ? timing_.reschedule : timing_.restart);
  restart_ends_[1] = restart_ends_[0] + (timing_.restart_parts ? init : 0);
  restart_ends_[2] = restart_ends_[1] + load;
  if (!flows() || !timing_.restart_parts || load == 0) {
    timer_ = queue_->after(restart_ends_[2], [this] { begin_cycle(); });
    return;
  }
  // The load is a flow: it lasts until the storage says the checkpoint is read back.
  restart_ends_[2] = std::numeric_limits<sim::Tick>::max() / 4;
  const std::uint64_t serial = ++restart_serial_;
  timer_ = queue_->after(restart_ends_[1], [this, serial] {
    hooks_.load(load_mode_, [this, serial] {
      if (state_ != State::RESTART || serial != restart_serial_) return; // interrupted meanwhile
      restart_ends_[2] = queue_->now() - restart_began_;
      begin_cycle();
    });
  });
}

void TrainingJob::begin_cycle() {
  if (stop_due()) { // after a restart nothing is pending: the planned stop can be taken at once
    begin_maintenance();
    return;
  }
  const bool restarted = state_ == State::RESTART;
  transition(State::CYCLE);
  next_load_ = timing_.load_planned; // a later stop that is not a failure reads the durable copy back
  load_mode_ = -1;
  after_failure_ = false;
  origin_ = queue_->now();
  static const sim::Name running("running");
  if (restarted) event(running);
  arm_stop();
  arm_completion();
  arm_snapshot();
}

void TrainingJob::planned_tick() {
  queue_->after(timing_.planned_every, [this] { planned_tick(); });
  planned_due_ = true;
  if (state_ == State::RESTART || state_ == State::WAITING) { // stopped, nothing to save: do it now
    begin_maintenance();
    return;
  }
  if (state_ == State::CYCLE) take_planned_stop(); // otherwise after detection (resume), the write, or the stall
}

void TrainingJob::take_planned_stop() {
  close_current();
  if (pending_work() == 0) {
    begin_maintenance(); // exactly at a checkpoint
    return;
  }
  // Write a checkpoint now (or finish the one in progress), then stop.
  transition(State::FINAL_WRITE);
  timer_ = queue_->after(timing_.final_write_or_write() - pending_checkpoint_, [this] {
    close_current();
    commit_checkpoint(queue_->now(), true);
    last_commit_at_ = -1; // a planned stop's copy is in the last tier
    remaining_ = timing_.interval;
    begin_maintenance();
    serve_requests_later(); // stops waiting for this checkpoint are served by the planned stop
  });
}

void TrainingJob::arm_stop() {
  queue_->cancel(stop_timer_);
  if (stop_requests_.empty() || state_ != State::CYCLE) return;
  close_current(); // bring the lazy cycle up to now: its origin becomes now
  // Date of the next checkpoint's completion, by the cycle's arithmetic.
  const sim::Tick done = remaining_ > 0 ? origin_ + wall_of(remaining_) + timing_.write
                                        : origin_ + timing_.write - pending_checkpoint_;
  stop_timer_ = queue_->at(done, [this] {
    stop_timer_ = {};
    close_current(); // commits the checkpoint completing now
    serve_stops(true);
  });
}

void TrainingJob::serve_stops(bool planned) {
  if (planned) {
    ++interruptions_planned_;
    event("drained");
  }
  transition(State::STOPPED);
  set_stop_cause(mechanism(Mechanism::PLANNED_STOP)); // a drain: what follows is the planned work's
  // Served in an event of their own: a request's callback may take GPUs or return capacity, and the
  // job must not react before its own transition is complete.
  queue_->after(0, [this] {
    auto requests = std::move(stop_requests_);
    stop_requests_.clear();
    for (auto& r : requests)
      r();
    if (state_ == State::STOPPED) resume();
  });
}

void TrainingJob::request_stop(std::function<void()> stopped) {
  stop_requests_.push_back(std::move(stopped));
  switch (state_) {
  case State::CYCLE: arm_stop(); break;   // at the next checkpoint
  case State::FINAL_WRITE:                // at the planned stop's checkpoint
  case State::STALL:                      // re-armed when the stall ends
  case State::REFORM: break;
  case State::RESTART: serve_stops(false); break; // nothing to save: stop now, restart after
  case State::STOPPED: break;
  case State::QUEUED:
  case State::DETECTION:
  case State::WAITING:
  case State::MAINTENANCE:
  case State::DONE: serve_requests_later(); break; // not training: the GPUs are free to take now
  }
}

void TrainingJob::serve_requests_later() {
  if (stop_requests_.empty()) return;
  // In an event of their own: a request's callback may release or resize the job, which it may do only
  // once the job's own transition is complete.
  queue_->after(0, [requests = std::exchange(stop_requests_, {})] {
    for (auto& r : requests)
      r();
  });
}

void TrainingJob::begin_maintenance() {
  const bool periodic = planned_due_;
  planned_due_ = false;
  ++interruptions_planned_;
  transition(State::MAINTENANCE);
  set_stop_cause(mechanism(Mechanism::PLANNED_STOP));
  event("planned_stop");
  // The periodic stop lasts planned_downtime; a hold lasts until released.
  if (periodic || holds_ == 0) timer_ = queue_->after(timing_.planned_downtime, [this] { resume(); });
  if (hooks_.stopped) hooks_.stopped();
}

void TrainingJob::resume() {
  if (!undetected_.empty()) {
    transition(State::DETECTION);
    if (struck_cause_ >= 0) set_stop_cause(struck_cause_); // struck during the planned stop
    struck_cause_ = -1;
    return;
  }
  if (stop_due()) { // stopped at its last checkpoint anyway: do the planned work before restarting
    begin_maintenance();
    return;
  }
  if (holds_ > 0) return; // held: stays in maintenance until unhold()
  sim::Tick extra = 0;
  if (hooks_.recover(extra)) {
    start_restart(extra);
  } else {
    transition(State::WAITING);
    event("waiting");
  }
}

void TrainingJob::reset_strategy() {
  std::vector<std::uint64_t> ids;
  strategy_->reset(ids);
  undetected_.insert(ids.begin(), ids.end());
}

void TrainingJob::on_failure(std::uint64_t id, int mode) {
  undetected_.insert(id);
  ++failures_by_mode_[static_cast<std::size_t>(mode)];
  switch (state_) {
  case State::CYCLE:
  case State::FINAL_WRITE:
  case State::STALL:
  case State::REFORM:
  case State::RESTART: {
    const bool restarting = state_ == State::RESTART;
    if (restarting) ++interruptions_recovery_;
    transition(State::DETECTION);
    set_stop_cause(mode);
    cause_of_[static_cast<std::size_t>(JobTime::REWORK)] = mode;
    reset_strategy(); // the parts out rejoin with the restart; their failures' detection is awaited
    fall_back(mode);
    last_commit_at_ = -1; // the copy restored from is kept until the next checkpoint
    need_load(mode, !restarting);
    lose_pending();
    remaining_ = timing_.interval;
    ++interruptions_;
    ++interruptions_by_mode_[static_cast<std::size_t>(mode)];
    static const sim::Name interruption("interruption");
    if (log_->enabled()) event(interruption, hooks_.cause_name(mode));
    if (!stop_requests_.empty()) { // the job is stopped anyway: pending drains are served now
      auto requests = std::move(stop_requests_);
      stop_requests_.clear();
      queue_->after(0, [requests = std::move(requests)] {
        for (auto& r : requests)
          r();
      });
    }
    break;
  }
  case State::WAITING:
  case State::STOPPED:
    need_load(mode, false);
    transition(State::DETECTION);
    if (cause_of_[static_cast<std::size_t>(JobTime::DETECTION)] >= modes_) set_stop_cause(mode); // a failure now
    break;
  case State::MAINTENANCE:
    if (struck_cause_ < 0) struck_cause_ = mode;
    break;
  case State::DETECTION:
  case State::QUEUED:
  case State::DONE: break;
  }
}

void TrainingJob::hold() {
  ++holds_;
  switch (state_) {
  case State::MAINTENANCE:
    if (hooks_.stopped) hooks_.stopped();
    return;
  case State::RESTART:
  case State::WAITING: begin_maintenance(); return; // stopped, nothing to save
  case State::CYCLE: take_planned_stop(); return;
  case State::FINAL_WRITE: // stops when the write completes
  case State::STALL:       // at the end of the stall
  case State::REFORM:      // at the end of the stall
  case State::DETECTION:   // once every failure is detected
  case State::STOPPED:     // when its stop requests are served (resume)
  case State::QUEUED:      // once placed
  case State::DONE: return;
  }
}

void TrainingJob::unhold() {
  if (holds_ == 0) throw std::logic_error("TrainingJob::unhold without a hold");
  if (--holds_ > 0) return;
  if (state_ == State::MAINTENANCE && !queue_->pending(timer_)) resume();
}

void TrainingJob::on_failure_detected(std::uint64_t id) {
  if (strategy_->on_detected(id)) return;
  if (!undetected_.erase(id) || !undetected_.empty()) return;
  if (state_ == State::DETECTION) resume();
}

void TrainingJob::on_capacity_changed() {
  sim::Tick extra = 0;
  if (state_ == State::WAITING && hooks_.recover(extra))
    start_restart(extra);
  else if (absorbable())
    strategy_->on_capacity_changed();
}

void TrainingJob::on_struck(std::uint64_t id, int mode, const std::vector<int>& ranks) {
  if (!strategy_->on_struck(id, FailureCause{mode}, ranks)) on_failure(id, mode);
}

void TrainingJob::pause(JobTime as, sim::Tick duration, FailureCause cause) {
  transition(State::REFORM); // a pause or fabric stall in progress ends here: this one replaces it
  reform_as_ = as;
  cause_of_[static_cast<std::size_t>(as)] = cause.value();
  if (duration >= 0) timer_ = queue_->after(duration, [this] { end_reform(); });
}

void TrainingJob::end_reform() {
  transition(State::CYCLE);
  origin_ = queue_->now(); // the cycle goes on where it stopped (a write in progress resumes)
  go_on();
}

void TrainingJob::go_on() {
  if (stop_due()) {
    take_planned_stop();
    return;
  }
  arm_stop();
  arm_completion();
  arm_snapshot();
  strategy_->on_cycling(); // parts may be ready to rejoin
}

std::vector<bool> TrainingJob::ranks_up(const std::vector<int>& ranks) {
  if (hooks_.ranks_up) return hooks_.ranks_up(ranks);
  sim::Tick extra = 0;
  return std::vector<bool>(ranks.size(), hooks_.recover(extra));
}

void TrainingJob::note(const char* kind, std::string detail) {
  if (log_->enabled()) event(sim::Name(kind), std::move(detail));
}

void TrainingJob::set_slowdown(double slowdown) {
  if (!(slowdown >= 1.0)) throw std::logic_error("TrainingJob::set_slowdown: factor must be >= 1");
  if (slowdown == slowdown_) return;
  if (state_ == State::CYCLE) close_current(); // progress so far at the old pace
  slowdown_ = slowdown;
  arm_stop(); // the next checkpoint moved
  arm_completion();
  arm_snapshot();
}

void TrainingJob::stall(sim::Tick duration) {
  if (duration <= 0) return;
  const sim::Tick until = queue_->now() + duration;
  if (state_ == State::STALL) {
    if (until <= stall_until_) return;
    queue_->cancel(timer_);
  } else if (state_ == State::CYCLE) {
    transition(State::STALL);
  } else {
    return; // not running: nothing to stall
  }
  stall_until_ = until;
  timer_ = queue_->at(until, [this] {
    transition(State::CYCLE);
    origin_ = queue_->now();
    go_on();
  });
}

GpuTicks TrainingJob::held_gpu_time() const {
  GpuTicks held = 0;
  for (const GpuTicks t : time_)
    held += t;
  return held;
}

void TrainingJob::finish() {
  if (state_ == State::DONE) return;
  transition(State::DONE);
  commit_pending();
}

} // namespace dcsim::workload
