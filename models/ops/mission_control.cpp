#include "models/ops/mission_control.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace dcsim::ops {

namespace {

// Event kinds named once (interning hashes the text).
const sim::Name& kind_latent_failure() {
  static const sim::Name name("latent_failure");
  return name;
}
const sim::Name& kind_repair_stage() {
  static const sim::Name name("repair_stage");
  return name;
}
const sim::Name& kind_escalation() {
  static const sim::Name name("escalation");
  return name;
}
const sim::Name& kind_detection() {
  static const sim::Name name("detection");
  return name;
}
const sim::Name& kind_retire() {
  static const sim::Name name("retire");
  return name;
}
const sim::Name& kind_prediction() {
  static const sim::Name name("prediction");
  return name;
}
const sim::Name& kind_proactive_repair() {
  static const sim::Name name("proactive_repair");
  return name;
}
const sim::Name& kind_found() {
  static const sim::Name name("found");
  return name;
}

/// "WORD WORD ... H.HHH h", as fmt::format("{} ... {:.3f} h") writes it (sim::append_fixed3).
std::string hours_detail(std::initializer_list<std::string_view> words, double hours) {
  std::string out;
  for (const auto word : words) {
    out.append(word);
    out.push_back(' ');
  }
  sim::append_fixed3(out, hours);
  out.append(" h");
  return out;
}

} // namespace


using failure::FaultKind;

MissionControl::MissionControl(const OperationsSpec& ops, const failure::FailuresSpec& failures,
                               const hardware::Layout& layout, failure::GpuHealth& health, sim::EventQueue& queue,
                               sim::EventLog& log, std::uint64_t seed, std::uint64_t replica, Listener listener,
                               Namer namer)
    : ops_(&ops), failures_(&failures), layout_(&layout), health_(&health), queue_(&queue), log_(&log),
      listener_(std::move(listener)), namer_(std::move(namer)), stats_(failures.modes.size()) {
  for (const auto& m : failures.modes) {
    repair_rng_.emplace_back(seed, replica, "repair/" + m.name);
    latent_rng_.emplace_back(seed, replica, "latent/" + m.name);
    scope_names_.emplace_back(m.scope_name);
  }
}

MissionControl::~MissionControl() = default;

void MissionControl::attach_facility(CoolingWorks& works, const RlccSpec& rlcc, int rlcc_crews,
                                     int extra_causes) {
  works_ = &works;
  Rlcc::Hooks hooks;
  hooks.drain = [this](const std::vector<int>& racks, bool coolant, std::function<void()> drained) {
    works_->drain(racks, coolant, std::move(drained));
  };
  rlcc_ = std::make_unique<Rlcc>(rlcc, rlcc_crews, *queue_, *log_, std::move(hooks));
  stats_.resize(failures_->modes.size() + static_cast<std::size_t>(extra_causes));
}

sim::Name MissionControl::component(const failure::Failure& f) {
  // A unit's name depends on its mode and number only: formatted and interned at its first failure.
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(f.mode)) << 32) |
                            static_cast<std::uint32_t>(f.unit);
  auto it = unit_names_.find(key);
  if (it == unit_names_.end())
    it = unit_names_.emplace(key, namer_ ? sim::Name(namer_(f)) : sim::Name(layout_->unit_name(f.scope, f.unit))).first;
  return it->second;
}

const sim::Name& MissionControl::scope(const failure::Failure& f) const { return scope_names_[static_cast<std::size_t>(f.mode)]; }

void MissionControl::note(sim::Name kind, const Active& a, std::string detail) {
  if (!log_->enabled()) return;
  log_->add({queue_->now(), kind, a.name, scope(a.f), {}, detail.empty() ? mode(a.f).name : std::move(detail)});
}

hardware::GpuRange MissionControl::rack_of(const failure::Failure& f) const {
  return layout_->unit_range(hardware::Scope::RACK, layout_->rack_of(f.gpus.first));
}

void MissionControl::take_down(Active& a, hardware::GpuRange range) {
  if (a.down.count > 0) health_->repair(a.down); // widen: release the old hold first
  health_->fail(range);
  a.down = range;
}

void MissionControl::start() {
  if (ops_->health_check_interval_h > 0)
    queue_->after(sim::hours_to_ticks(ops_->health_check_interval_h), [this] { sweep(); });
}

void MissionControl::record(const failure::Failure& f) {
  if (active_.count(f.id)) return; // failure ids are unique: recorded already
  ++stats_[static_cast<std::size_t>(f.mode)].failures;
  Active a;
  a.f = f;
  if (log_->enabled()) {
    a.name = component(f);
    static const sim::Name failure("failure");
    log_->add({f.time, failure, a.name, scope(f), {}, mode(f).name});
  }
  if (mode(f).takes_down()) {
    a.down = f.gpus;
    a.down_at_strike = true;
  }
  active_.emplace(f.id, std::move(a));
}

void MissionControl::on_failure(const failure::Failure& f) {
  record(f);
  const auto& m = mode(f);
  const std::uint64_t id = f.id;
  if (m.on_cooling()) {
    strike_cooling(id);
    return;
  }
  Active& a = active_.at(id);
  switch (m.kind) {
  case FaultKind::FAIL_STOP: a.timer = queue_->after(sim::to_ticks(m.detect_s), [this, id] { detect(id); }); break;
  case FaultKind::HANG: a.timer = queue_->after(sim::to_ticks(ops_->collective_timeout_s), [this, id] { detect(id); }); break;
  case FaultKind::GRAY:
    if (ops_->straggler_detection)
      a.timer = queue_->after(sim::to_ticks(ops_->straggler_detect_s), [this, id] {
        Active& g = active_.at(id);
        g.timer = {};
        take_down(g, g.f.gpus); // singled out: replaced, which stops its job
        listener_.taken_down(g.f);
        detect(id);
      });
    break;
  case FaultKind::LATENT: {
    const double after_h = latent_rng_[static_cast<std::size_t>(f.mode)].exponential(1.0 / m.latent_fail_h);
    a.timer = queue_->after(sim::hours_to_ticks(after_h), [this, id] {
      Active& l = active_.at(id);
      l.timer = {};
      take_down(l, l.f.gpus); // the latent fault becomes a failure
      note(kind_latent_failure(), l);
      listener_.taken_down(l.f);
      l.timer = queue_->after(sim::to_ticks(mode(l.f).detect_s), [this, id] { detect(id); });
    });
    break;
  }
  }
}

void MissionControl::detect(std::uint64_t id) {
  Active& a = active_.at(id);
  a.timer = {};
  static const sim::Name detection("detection");
  note(detection, a);
  if (mode(a.f).on_cooling()) {
    repair_cooling(id);
    return;
  }
  const bool nvlink_degraded = mode(a.f).nvlink_degraded_frac > 0;
  if (!nvlink_degraded && retire_if_lemon(id)) {
    listener_.detected(active_.at(id).f);
    return;
  }
  const failure::Failure f = a.f;
  if (nvlink_degraded) {
    // The domain runs on degraded NVLink: repair it in a planned way, the rack drained first.
    listener_.detected(f);
    listener_.drain(rack_of(f), [this, id] {
      auto it = active_.find(id);
      if (it == active_.end()) return;
      take_down(it->second, rack_of(it->second.f));
      begin_repair(id);
    });
    return;
  }
  begin_repair(id); // a zero-length repair completes here, before the jobs hear of the detection
  listener_.detected(f);
}

void MissionControl::begin_repair(std::uint64_t id) {
  Active& a = active_.at(id);
  if (mode(a.f).repair_pipeline) {
    request_stage(id, 0);
    return;
  }
  a.duration = sim::hours_to_ticks(mode(a.f).draw_repair_h(repair_rng_[static_cast<std::size_t>(a.f.mode)]));
  if (a.duration == 0) {
    complete(id, false); // nothing to replace (a software fault): no crew
  } else if (!mode(a.f).repair_crew) {
    start_fixed(id, /*crew=*/false); // comes back on its own (a link flap): no crew, no queue
  } else if (crew_free()) {
    start_fixed(id, /*crew=*/true);
  } else {
    waiting_.emplace_back(id, -1);
  }
}

void MissionControl::start_fixed(std::uint64_t id, bool crew) {
  Active& a = active_.at(id);
  if (crew) ++busy_;
  static const sim::Name repair_start("repair_start");
  if (log_->enabled()) note(repair_start, a, hours_detail({mode(a.f).name}, sim::to_hours(a.duration)));
  a.timer = queue_->after(a.duration, [this, id, crew] {
    active_.at(id).timer = {};
    if (crew) release_crew();
    complete(id, false);
  });
}

void MissionControl::request_stage(std::uint64_t id, int stage) {
  const RepairStage& st = ops_->repair_pipeline.at(static_cast<std::size_t>(stage));
  if (st.crew && !crew_free()) {
    waiting_.emplace_back(id, stage);
    return;
  }
  if (st.crew) ++busy_; // held from now on, also while the rack drains
  if (st.drain_rack) {
    listener_.drain(rack_of(active_.at(id).f), [this, id, stage] {
      if (!active_.count(id)) return;
      Active& a = active_.at(id);
      take_down(a, rack_of(a.f));
      start_stage(id, stage);
    });
    return;
  }
  start_stage(id, stage);
}

void MissionControl::start_stage(std::uint64_t id, int stage) {
  Active& a = active_.at(id);
  const RepairStage& st = ops_->repair_pipeline[static_cast<std::size_t>(stage)];
  failure::FailureModeSpec draw; // the stage's duration distribution, drawn like a mode's repair
  draw.repair_h = st.duration_h;
  draw.repair_dist = st.dist;
  draw.repair_sigma = st.sigma;
  const sim::Tick duration = sim::hours_to_ticks(draw.draw_repair_h(repair_rng_[static_cast<std::size_t>(a.f.mode)]));
  a.stage = stage;
  if (log_->enabled()) note(kind_repair_stage(), a, hours_detail({mode(a.f).name, st.name}, sim::to_hours(duration)));
  a.timer = queue_->after(duration, [this, id, stage] { end_stage(id, stage); });
}

void MissionControl::end_stage(std::uint64_t id, int stage) {
  Active& a = active_.at(id);
  a.timer = {};
  const RepairStage& st = ops_->repair_pipeline[static_cast<std::size_t>(stage)];
  sim::Rng& rng = repair_rng_[static_cast<std::size_t>(a.f.mode)];
  if (st.crew) release_crew();
  if (st.drain_rack && a.down.count > a.f.gpus.count) { // the rest of the rack returns
    health_->repair(a.down);
    health_->fail(a.f.gpus);
    a.down = a.f.gpus;
  }
  if (rng.bernoulli(st.success_frac)) {
    complete(id, rng.bernoulli(st.escape_frac));
    return;
  }
  note(kind_escalation(), a, fmt::format("{} {} failed", mode(a.f).name, st.name));
  request_stage(id, stage + 1);
}

void MissionControl::release_crew() {
  --busy_;
  while (!waiting_.empty() && crew_free()) {
    const auto [id, stage] = waiting_.front();
    waiting_.pop_front();
    if (stage < 0)
      start_fixed(id, /*crew=*/true);
    else
      request_stage(id, stage);
  }
}

void MissionControl::complete(std::uint64_t id, bool escaped) {
  Active a = std::move(active_.at(id));
  active_.erase(id);
  auto& s = stats_[static_cast<std::size_t>(a.f.mode)];
  if (!a.predicted) {
    ++s.repaired;
    s.time_to_repair += queue_->now() - a.f.time;
  }
  if (escaped) ++s.escapes;
  sim::Rng& rng = repair_rng_[static_cast<std::size_t>(a.f.mode)];
  if (injector_ && !escaped && injector_->is_lemon(a.f.mode, a.f.unit) && rng.bernoulli(ops_->lemon_fix_frac))
    injector_->fix_lemon(a.f.mode, a.f.unit);
  if (a.down.count > 0) health_->repair(a.down);
  static const sim::Name repair_done("repair_done");
  note(repair_done, a, escaped ? mode(a.f).name + " (still faulty)" : std::string{});
  if (injector_) {
    injector_->renew(a.f);
    if (escaped)
      injector_->strike_at(a.f.mode, a.f.unit,
                           queue_->now() + sim::hours_to_ticks(rng.exponential(1.0 / ops_->escape_refail_h)));
  }
  listener_.repaired(a.f);
}

// --- Cooling faults: RLCC workflows ------------------------------------------------------------------

void MissionControl::strike_cooling(std::uint64_t id) {
  if (!works_) throw std::logic_error("MissionControl: a cooling fault without a facility attached");
  Active& a = active_.at(id);
  const auto& m = mode(a.f);
  const sim::Tick detect_after = sim::to_ticks(m.detect_s);
  if (!works_->ends_by_itself(a.f)) {
    a.timer = queue_->after(detect_after, [this, id] { detect(id); });
    return;
  }
  // It passes by itself after its repair time, drawn now; its detection (possibly later) only notes it.
  sim::Rng& rng = repair_rng_[static_cast<std::size_t>(a.f.mode)];
  const sim::Tick lasts = sim::hours_to_ticks(m.draw_repair_h(rng));
  queue_->after(lasts, [this, id] {
    works_->ended(active_.at(id).f);
    complete_cooling(id);
  });
  queue_->after(detect_after, [this, noted = a] { note(kind_detection(), noted); });
}

void MissionControl::repair_cooling(std::uint64_t id) {
  const failure::Failure f = active_.at(id).f;
  Rlcc::Workflow w = works_->repair_workflow(f); // isolates now what must be (a leak)
  w.service = sim::hours_to_ticks(mode(f).draw_repair_h(repair_rng_[static_cast<std::size_t>(f.mode)]));
  w.done = [this, id, returned = std::move(w.done)] {
    if (returned) returned();
    complete_cooling(id);
  };
  rlcc_->start(std::move(w));
}

void MissionControl::complete_cooling(std::uint64_t id) {
  const failure::Failure f = active_.at(id).f;
  active_.erase(id);
  auto& s = stats_[static_cast<std::size_t>(f.mode)];
  ++s.repaired;
  s.time_to_repair += queue_->now() - f.time;
  if (injector_) injector_->renew(f);
  listener_.repaired(f);
}

void MissionControl::run_workflow(Rlcc::Workflow w) {
  if (!rlcc_) throw std::logic_error("MissionControl: a workflow without a facility attached");
  rlcc_->start(std::move(w));
}

void MissionControl::outage_began(int cause) { ++stats_.at(static_cast<std::size_t>(cause)).failures; }

void MissionControl::outage_ended(int cause, sim::Tick since) {
  auto& s = stats_.at(static_cast<std::size_t>(cause));
  ++s.repaired;
  s.time_to_repair += queue_->now() - since;
}

bool MissionControl::retire_if_lemon(std::uint64_t id) {
  if (ops_->lemon_retire_failures <= 0) return false;
  const Active& a = active_.at(id);
  auto& dates = history_[{a.f.mode, a.f.unit}];
  dates.push_back(a.f.time);
  const sim::Tick window = sim::hours_to_ticks(ops_->lemon_window_h);
  while (!dates.empty() && dates.front() < a.f.time - window)
    dates.pop_front();
  if (static_cast<int>(dates.size()) < ops_->lemon_retire_failures) return false;
  dates.clear();
  ++stats_[static_cast<std::size_t>(a.f.mode)].retired;
  note(kind_retire(), a);
  active_.at(id).timer = queue_->after(sim::hours_to_ticks(ops_->retire_replace_h), [this, id] {
    Active& r = active_.at(id);
    r.timer = {};
    if (injector_) injector_->fix_lemon(r.f.mode, r.f.unit); // a new unit
    complete(id, false);
  });
  return true;
}

void MissionControl::on_predicted(int mode_index, int unit, sim::Tick date) {
  const auto& m = failures_->modes[static_cast<std::size_t>(mode_index)];
  failure::Failure f;
  f.id = next_predicted_id_++;
  f.mode = mode_index;
  f.scope = m.scope(); // predictions are of hardware units (decode_failures)
  f.unit = unit;
  f.gpus = layout_->unit_range(f.scope, unit);
  f.time = queue_->now();
  Active a;
  a.f = f;
  a.predicted = true;
  if (log_->enabled()) a.name = component(f);
  note(kind_prediction(), a, hours_detail({m.name, "due in"}, sim::to_hours(date - queue_->now())));
  auto take = [this, a] {
    if (!injector_ || !injector_->take_unit(a.f.mode, a.f.unit)) return; // it failed first: the failure path has it
    ++stats_[static_cast<std::size_t>(a.f.mode)].predicted;
    active_.emplace(a.f.id, a);
    take_down(active_.at(a.f.id), a.f.gpus);
    note(kind_proactive_repair(), a);
    begin_repair(a.f.id);
  };
  if (listener_.is_free(f.gpus))
    take();
  else
    listener_.drain(f.gpus, take);
}

void MissionControl::found(std::uint64_t id) {
  Active& a = active_.at(id);
  queue_->cancel(a.timer);
  ++stats_[static_cast<std::size_t>(a.f.mode)].found;
  take_down(a, a.f.gpus);
  note(kind_found(), a);
  detect(id);
}

int MissionControl::preflight(const std::function<bool(int)>& mine) {
  std::vector<std::uint64_t> hits;
  for (const auto& [id, a] : active_) {
    if (mode(a.f).kind != FaultKind::LATENT || a.down.count > 0) continue;
    for (int g = a.f.gpus.first; g < a.f.gpus.end(); ++g)
      if (mine(g)) {
        hits.push_back(id);
        break;
      }
  }
  for (auto id : hits)
    found(id);
  return static_cast<int>(hits.size());
}

void MissionControl::sweep() {
  std::vector<std::uint64_t> hits;
  for (const auto& [id, a] : active_)
    if (mode(a.f).kind == FaultKind::LATENT && a.down.count == 0 && listener_.is_free(a.f.gpus)) hits.push_back(id);
  for (auto id : hits)
    found(id);
  queue_->after(sim::hours_to_ticks(ops_->health_check_interval_h), [this] { sweep(); });
}

} // namespace dcsim::ops
