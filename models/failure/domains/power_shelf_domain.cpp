// Power shelves of NVL72 racks (/hardware/rack/power_shelves n, power_shelves_needed k): a rack runs
// while at least k of its n shelves are up, so it rides through r = n − k shelf failures and goes down
// (every GPU cut off) when the (r+1)-th is down at once, until enough are repaired.
// Units: shelf s of rack R is unit R·n + s, named "rack0003/shelf5".
// Expected rate of rack outages (what interrupts a job), for shelves failing at λ̄ and down for a mean
// D = detect_s + repair_h each (independent, λ̄·D ≪ 1): the rack is in a state with r shelves down with
// probability C(n, r)·(λ̄·D)^r, and leaves it for an outage at rate (n − r)·λ̄, so
//   rate_rack = C(n, r) · (n − r) · λ̄ · (λ̄·D)^r        (r = 0: n·λ̄, every shelf failure is an outage)
//   rate_j    = |racks(G)| · rate_rack
// (the first-order term of the k-out-of-n availability model; it ignores crew queueing, which
#include "models/failure/domain_registry.hpp"
#include "sim/units.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <stdexcept>

namespace dcsim::failure {

namespace {

class PowerShelfDomain final : public FailureDomain {
public:
  /// `rack_changed(rack, down)`: the rack lost power (down) or has it back; the caller takes its GPUs down
  /// or up. Its GPUs are also reported as cut by strike().
  using RackChanged = std::function<void(int rack, bool down)>;

  PowerShelfDomain(const hardware::RackSpec& rack, const hardware::Layout& layout, RackChanged rack_changed)
      : layout_(&layout), shelves_(rack.power_shelves), needed_(rack.power_shelves_needed),
        rack_changed_(std::move(rack_changed)), down_(static_cast<std::size_t>(layout.racks()), 0) {}

  Domain domain() const override { return Domain::POWER; }
  std::int64_t units(const FailureModeSpec&) const override {
    return static_cast<std::int64_t>(layout_->racks()) * shelves_;
  }
  std::string unit_name(const FailureModeSpec&, int unit) const override {
    return fmt::format("{}/shelf{}", layout_->rack_name(unit / shelves_), unit % shelves_);
  }

  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override {
    const int n = shelves_, r = shelves_ - needed_;
    const double down_h = mode.detect_s / sim::S_PER_H + mode.repair_h;
    double states = 1; // C(n, r)
    for (int i = 1; i <= r; ++i)
      states = states * (n - r + i) / i;
    const double rack_rate = states * (n - r) * unit_rate_per_h * std::pow(unit_rate_per_h * down_h, r);
    const auto racks = distinct_of(gpus, [&](int g) { return layout_->rack_of(g); });
    return rack_rate * static_cast<double>(racks.size());
  }

  void strike(const FailureModeSpec&, const Failure& f, std::vector<int>& cut) override {
    const int rack = f.unit / shelves_;
    const bool was_down = rack_down(rack);
    ++down_[static_cast<std::size_t>(rack)];
    if (was_down || !rack_down(rack)) return;
    const hardware::GpuRange gpus = layout_->unit_range(hardware::Scope::RACK, rack);
    for (int g = gpus.first; g < gpus.end(); ++g)
      cut.push_back(g);
    if (rack_changed_) rack_changed_(rack, true);
  }

  void restore(const FailureModeSpec&, const Failure& f) override {
    const int rack = f.unit / shelves_;
    const bool was_down = rack_down(rack);
    if (--down_[static_cast<std::size_t>(rack)] < 0)
      throw std::logic_error("PowerShelfDomain: a shelf came back that was not down");
    if (was_down && !rack_down(rack) && rack_changed_) rack_changed_(rack, false);
  }

private:
  bool rack_down(int rack) const { return down_[static_cast<std::size_t>(rack)] > shelves_ - needed_; }

  const hardware::Layout* layout_;
  int shelves_, needed_;
  RackChanged rack_changed_;
  std::vector<int> down_; ///< shelves down per rack
};

constexpr Domain D = Domain::POWER;

} // namespace

const DomainEntry& power_shelf_domain_entry() {
  static const DomainEntry entry{
      D,
      40,
      {{"power_shelf", D, unit_kind_of(PowerUnit::SHELF), Reach::RACK}},
      "power_shelf (nvl72: one of /hardware/rack/power_shelves; the rack goes down while fewer than "
      "power_shelves_needed are up)",
      [](const ScopeContext& c, std::string_view) -> std::string {
        return c.rack_kind == hardware::RackKind::NVL72 ? "" : "power_shelf exists only in nvl72 racks";
      },
      [](const sim::Node& m, const FailureModeSpec& mode) {
        if (mode.kind != FaultKind::FAIL_STOP)
          m.problem("kind",
                    "power shelves fail stop (their effect on jobs is the rack they take down past redundancy)");
      },
      [](const DomainContext& c) -> std::unique_ptr<FailureDomain> {
        if (c.hardware->rack.kind != hardware::RackKind::NVL72) return nullptr;
        return std::make_unique<PowerShelfDomain>(c.hardware->rack, *c.layout, c.hooks.rack_power);
      }};
  return entry;
}

} // namespace dcsim::failure
