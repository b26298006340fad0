// Fabric elements: NIC ports, links (GPU cables and switch-to-switch links), leaves, spines, cores, over
// every plane (fabric/fabric_state.hpp numbers them). A failure lowers the bandwidth left to the GPUs
// behind the element; GPUs left with no path at all are cut off (down until it is back). The
// replica's `changed` hook applies the new state (FabricTracker, jobs' paces) and reports the GPUs cut off.
// A job is interrupted by an element whose failure alone cuts one of its GPUs off:
//   one port per GPU (1 plane × 1 port): each of its GPUs' NIC port and cable    rate_j = λ̄ · |G|
//   one plane: each leaf holding one of its GPUs                                 rate_j = λ̄ · |leaves(G)|
//   otherwise none (faults slow the job: the ledger's `degraded`)                rate_j = 0
#include "models/failure/domain_registry.hpp"

#include <functional>

namespace dcsim::failure {

namespace {

class FabricDomain final : public FailureDomain {
public:
  /// `changed(e, failed, cut)`: element e just changed state; append the GPUs it cut off to `cut`.
  using Changed = std::function<void(const fabric::Element& e, bool failed, std::vector<int>& cut)>;

  /// `platform` null: the domain answers questions (units, names, rates) but cannot strike.
  FabricDomain(const fabric::FabricState& state, fabric::FabricPlatform* platform, Changed changed)
      : state_(&state), platform_(platform), changed_(std::move(changed)) {}

  Domain domain() const override { return Domain::FABRIC; }
  std::int64_t units(const FailureModeSpec& mode) const override { return state_->unit_count(mode.element()); }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override {
    return state_->name(state_->element(mode.element(), unit));
  }

  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override {
    const fabric::ClosPlan& plan = state_->plan();
    const bool single_port = plan.planes() * plan.ports_per_plane() == 1;
    double cutting = 0; // elements whose failure alone cuts one of the GPUs off
    switch (mode.element()) {
    case fabric::ElementKind::NIC_PORT:
    case fabric::ElementKind::LINK:
      if (single_port) cutting = static_cast<double>(gpus.size());
      break;
    case fabric::ElementKind::LEAF:
      if (plan.planes() == 1)
        cutting = static_cast<double>(distinct_of(gpus, [&](int g) { return plan.leaf_of(g); }).size());
      break;
    case fabric::ElementKind::SPINE:
    case fabric::ElementKind::CORE:
      break; // redundant paths: a spine or core fault slows jobs, never cuts a GPU off alone
    }
    return unit_rate_per_h * cutting;
  }

  void strike(const FailureModeSpec& mode, const Failure& f, std::vector<int>& cut) override {
    const fabric::Element e = state_->element(mode.element(), f.unit);
    if (platform_->fail(e)) changed_(e, true, cut);
  }

  void restore(const FailureModeSpec& mode, const Failure& f) override {
    const fabric::Element e = state_->element(mode.element(), f.unit);
    std::vector<int> none;
    if (platform_->restore(e)) changed_(e, false, none);
  }

private:
  const fabric::FabricState* state_;
  fabric::FabricPlatform* platform_;
  Changed changed_;
};

constexpr Domain D = Domain::FABRIC;

} // namespace

const DomainEntry& fabric_domain_entry() {
  static const DomainEntry entry{
      D,
      20,
      {{"nic_port", D, unit_kind_of(fabric::ElementKind::NIC_PORT), Reach::NOTHING},
       {"link", D, unit_kind_of(fabric::ElementKind::LINK), Reach::NOTHING},
       {"leaf", D, unit_kind_of(fabric::ElementKind::LEAF), Reach::NOTHING},
       {"spine", D, unit_kind_of(fabric::ElementKind::SPINE), Reach::NOTHING},
       {"core", D, unit_kind_of(fabric::ElementKind::CORE), Reach::NOTHING}},
      "with a fabric also nic_port, link (GPU cable or switch-to-switch link), leaf, spine, core (3 tiers)",
      [](const ScopeContext& c, std::string_view) -> std::string {
        return c.has_fabric ? "" : "is a fabric element: the scenario needs a /fabric block";
      },
      [](const sim::Node& m, const FailureModeSpec& mode) {
        if (mode.kind != FaultKind::FAIL_STOP)
          m.problem("kind", "fabric elements fail stop (their effects on jobs are their lost bandwidth)");
      },
      [](const DomainContext& c) -> std::unique_ptr<FailureDomain> {
        if (!c.fabric) return nullptr;
        return std::make_unique<FabricDomain>(*c.fabric, c.hooks.fabric_platform, c.hooks.fabric_changed);
      }};
  return entry;
}

} // namespace dcsim::failure
