// Hardware units: GPUs, compute trays, nodes (an HGX server or an NVL72 tray), racks. A unit is a range of
// GPUs (hardware::Layout::unit_range) that a fail-stop or hang failure takes down at once; its repair
// (Mission Control) brings them back. A job on GPUs G is exposed to every unit holding one of them:
//   rate_j = λ̄ · |{ unit(g) : g ∈ G }|
#include "models/failure/domain_registry.hpp"

namespace dcsim::failure {

namespace {

class HardwareDomain final : public FailureDomain {
public:
  explicit HardwareDomain(const hardware::Layout& layout) : layout_(&layout) {}

  Domain domain() const override { return Domain::HARDWARE; }
  std::int64_t units(const FailureModeSpec& mode) const override { return layout_->unit_count(mode.scope()); }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override {
    return layout_->unit_name(mode.scope(), unit);
  }
  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override {
    const hardware::Scope scope = mode.scope(); // once, not per GPU (10^5 GPUs per job at 131k)
    const auto units = distinct_of(gpus, [&](int g) { return layout_->unit_of(scope, g); });
    return unit_rate_per_h * static_cast<double>(units.size());
  }
  void strike(const FailureModeSpec&, const Failure&, std::vector<int>&) override {}
  void restore(const FailureModeSpec&, const Failure&) override {}

private:
  const hardware::Layout* layout_;
};

constexpr Domain D = Domain::HARDWARE;

} // namespace

const DomainEntry& hardware_domain_entry() {
  static const DomainEntry entry{
      D,
      10,
      {{"gpu", D, unit_kind_of(hardware::Scope::GPU), Reach::HOST},
       {"tray", D, unit_kind_of(hardware::Scope::TRAY), Reach::TRAY},
       {"node", D, unit_kind_of(hardware::Scope::NODE), Reach::TRAY},
       {"rack", D, unit_kind_of(hardware::Scope::RACK), Reach::RACK}},
      "gpu, tray (nvl72 compute tray), node (hgx server or nvl72 tray), rack",
      [](const ScopeContext& c, std::string_view word) -> std::string {
        if (word == "tray" && c.rack_kind != hardware::RackKind::NVL72)
          return "tray exists only in nvl72 racks; use node for an hgx server";
        return {};
      },
      [](const sim::Node&, const FailureModeSpec&) {},
      [](const DomainContext& c) -> std::unique_ptr<FailureDomain> { return std::make_unique<HardwareDomain>(*c.layout); }};
  return entry;
}

} // namespace dcsim::failure
