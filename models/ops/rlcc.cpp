#include "models/ops/rlcc.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dcsim::ops {

std::string_view stage_name(Stage stage) {
  switch (stage) {
  case Stage::DRAIN:
    return "drain";
  case Stage::ISOLATE:
    return "isolate";
  case Stage::SERVICE:
    return "service";
  case Stage::REFILL:
    return "refill";
  case Stage::BURN_IN:
    return "burn_in";
  }
  return "?";
}

Rlcc::Rlcc(const RlccSpec& spec, int crews, sim::EventQueue& queue, sim::EventLog& log, Hooks hooks)
    : spec_(&spec), crews_(crews), queue_(&queue), log_(&log), hooks_(std::move(hooks)) {}

void Rlcc::start(Workflow workflow) {
  const std::uint64_t id = next_id_++;
  Flow flow;
  if (workflow.drain) flow.stages.push_back(Stage::DRAIN);
  if (workflow.coolant) flow.stages.push_back(Stage::ISOLATE);
  flow.stages.push_back(Stage::SERVICE);
  if (workflow.coolant) flow.stages.push_back(Stage::REFILL);
  if (workflow.burn_in) flow.stages.push_back(Stage::BURN_IN);
  flow.w = std::move(workflow);
  flows_.emplace(id, std::move(flow));
  advance(id);
}

void Rlcc::begin(std::uint64_t id, Stage stage, sim::Tick duration) {
  const Flow& f = flows_.at(id);
  if (log_->enabled())
    log_->add(
        {queue_->now(), "rlcc_" + std::string(stage_name(stage)), f.w.component, f.w.scope, "",
         stage == Stage::DRAIN ? f.w.cause : fmt::format("{} {:.3f} h", f.w.cause, sim::to_hours(duration))});
}

void Rlcc::advance(std::uint64_t id) {
  Flow& f = flows_.at(id);
  if (f.next == f.stages.size()) {
    Workflow w = std::move(f.w);
    flows_.erase(id);
    if (log_->enabled()) log_->add({queue_->now(), "return_to_service", w.component, w.scope, "", w.cause});
    if (w.done) w.done();
    return;
  }
  const Stage stage = f.stages[f.next++];
  switch (stage) {
  case Stage::DRAIN:
    begin(id, stage, 0);
    if (!hooks_.drain) throw std::logic_error("Rlcc: a planned drain without a drain hook");
    { // the hook may call back at once: it gets copies, not references into the flow
      const std::vector<int> racks = f.w.racks;
      hooks_.drain(racks, f.w.coolant, [this, id] { advance(id); });
    }
    return;
  case Stage::SERVICE:
    if (f.w.crew && crews_ > 0 && busy_ >= crews_) {
      waiting_.push_back(id);
      return;
    }
    serve(id);
    return;
  case Stage::ISOLATE:
  case Stage::REFILL:
  case Stage::BURN_IN: {
    const double s = stage == Stage::ISOLATE  ? spec_->isolate_s
                     : stage == Stage::REFILL ? spec_->refill_s
                                              : spec_->burn_in_s;
    const sim::Tick d = sim::to_ticks(s);
    begin(id, stage, d);
    queue_->after(d, [this, id] { advance(id); });
    return;
  }
  }
}

void Rlcc::serve(std::uint64_t id) {
  Flow& f = flows_.at(id);
  const bool crew = f.w.crew;
  if (crew) ++busy_;
  begin(id, Stage::SERVICE, f.w.service);
  queue_->after(f.w.service, [this, id, crew] {
    if (crew) {
      --busy_;
      while (!waiting_.empty() && (crews_ == 0 || busy_ < crews_)) {
        const std::uint64_t next = waiting_.front();
        waiting_.pop_front();
        serve(next);
      }
    }
    advance(id);
  });
}

} // namespace dcsim::ops
