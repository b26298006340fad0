// Cooling elements (cooling/spec.hpp): a rack's branch (a leak), its valve, a CDU's pumps, a CDU loop,
// the facility water. A strike goes to the `strike` hook: the facility (models/facility.hpp) applies its
// physics (flow, supply temperature, shutdowns); Mission Control detects and repairs it like any fault,
// with an RLCC workflow whose physical side the facility supplies. Restore has nothing left to do: the
// workflow's end returned the unit.
// A job is exposed to the elements whose failure takes its racks down:
//   branch (leak), isolation "rack": each of its racks             rate_j = λ̄ · |racks(G)|
//   branch (leak), isolation "loop": every rack of its loops       rate_j = λ̄ · Σ_{loops(G)} racks in loop
//   loop (a CDU failure): each of its loops                        rate_j = λ̄ · |loops(G)|
//   valve, pump, facility water: 0 (they slow or drain jobs in a planned way, or rarely stop them)
#include "models/failure/domain_registry.hpp"

#include <functional>

namespace dcsim::failure {

namespace {

class CoolingDomain final : public FailureDomain {
public:
  using Strike = std::function<void(const Failure&)>;

  CoolingDomain(const cooling::CoolingSpec& cooling, const hardware::Layout& layout, Strike strike)
      : cooling_(&cooling), layout_(&layout), strike_(std::move(strike)) {}

  Domain domain() const override { return Domain::COOLING; }
  std::int64_t units(const FailureModeSpec& mode) const override {
    return cooling::cooling_unit_count(*cooling_, mode.cooling_element(), layout_->racks());
  }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override {
    return cooling::cooling_unit_name(*cooling_, mode.cooling_element(), unit,
                                      [this](int rack) { return layout_->rack_name(rack); });
  }

  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override {
    const int per_loop = cooling_->racks_per_loop;
    const auto racks = distinct_of(gpus, [&](int g) { return layout_->rack_of(g); });
    const auto loops = distinct_of(gpus, [&](int g) { return layout_->rack_of(g) / per_loop; });
    double units = 0;
    switch (mode.cooling_element()) {
    case cooling::CoolingElement::BRANCH: // a leak isolates its rack, or its whole loop
      if (cooling_->isolation == cooling::Isolation::LOOP)
        for (int l : loops)
          units += std::min(per_loop, layout_->racks() - l * per_loop);
      else
        units = static_cast<double>(racks.size());
      break;
    case cooling::CoolingElement::LOOP: // a CDU failure stops its loop
      units = static_cast<double>(loops.size());
      break;
    case cooling::CoolingElement::VALVE:
    case cooling::CoolingElement::PUMP:
    case cooling::CoolingElement::FACILITY:
      break; // planned drains, throttling or a rare stop: not counted as interruptions
    }
    return unit_rate_per_h * units;
  }

  void strike(const FailureModeSpec&, const Failure& f, std::vector<int>&) override { strike_(f); }
  void restore(const FailureModeSpec&, const Failure&) override {}

private:
  const cooling::CoolingSpec* cooling_;
  const hardware::Layout* layout_;
  Strike strike_;
};

constexpr Domain D = Domain::COOLING;

void check_cooling_mode(const sim::Node& m, const FailureModeSpec& mode) {
  // Mission Control repairs them with RLCC workflows (ops/mission_control.hpp)
  if (mode.kind != FaultKind::FAIL_STOP)
    m.problem("kind", "cooling elements fail stop (Racky detects them after detect_s; their effects on jobs "
                      "are the facility's physics)");
  if (m.has("repair_pipeline"))
    m.problem("repair_pipeline", "has no effect on cooling elements: an RLCC workflow (/rlcc) repairs them");
  if (m.has("repair_crew"))
    m.problem("repair_crew", "has no effect on cooling elements: their repairs take one of /cooling/crews");
}

} // namespace

const DomainEntry& cooling_domain_entry() {
  // A leak or a closed valve takes its rack down; a pump, a loop or the facility water many racks.
  static const DomainEntry entry{
      D,
      30,
      {{"branch", D, unit_kind_of(cooling::CoolingElement::BRANCH), Reach::RACK},
       {"valve", D, unit_kind_of(cooling::CoolingElement::VALVE), Reach::RACK},
       {"pump", D, unit_kind_of(cooling::CoolingElement::PUMP), Reach::MANY_RACKS},
       {"loop", D, unit_kind_of(cooling::CoolingElement::LOOP), Reach::MANY_RACKS},
       {"facility", D, unit_kind_of(cooling::CoolingElement::FACILITY), Reach::MANY_RACKS}},
      "with cooling also branch (a leak), valve, pump, loop (CDU failure), facility (facility water excursion)",
      [](const ScopeContext& c, std::string_view) -> std::string {
        return c.has_cooling ? "" : "is a cooling element: the scenario needs a /cooling block";
      },
      check_cooling_mode,
      [](const DomainContext& c) -> std::unique_ptr<FailureDomain> {
        if (!c.cooling) return nullptr;
        return std::make_unique<CoolingDomain>(*c.cooling, *c.layout, c.hooks.cooling_strike);
      }};
  return entry;
}

} // namespace dcsim::failure
