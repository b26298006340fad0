// Object stores (/storage tiers of kind object_store), failing as a unit: scope `object_store`, one unit
// per such tier, in /storage/tiers order, named after the tier (docs/recovery.md, "Storage faults").
// A failure makes the store unreachable until it is repaired (an outage: its copies are not lost, an
// erasure-coded store keeps them): drains into it and restores from it fail meanwhile
// (storage/storage_traffic.hpp says what a job does then). With the mode's storage_bandwidth_frac f > 0
// the store is degraded instead (lost storage nodes, a rebuild): it keeps f of its bandwidth, so flows
// through it slow down and share less. No GPU goes down and no job is interrupted,
// so the expected rate of interruptions it adds to a job is 0; what it costs shows as checkpoints lost
// to later failures and longer restores.
#include "models/failure/domain_registry.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::failure {

namespace {

class StorageDomain final : public FailureDomain {
public:
  /// `changed(store, bandwidth_frac)`: store `store` (index into `names`) keeps this share of its
  /// bandwidth from now on: 0 out of reach, in (0, 1) degraded (the mode's storage_bandwidth_frac), 1 back.
  using StoreChanged = std::function<void(int store, double bandwidth_frac)>;

  StorageDomain(std::vector<std::string> names, StoreChanged changed)
      : names_(std::move(names)), changed_(std::move(changed)) {}

  Domain domain() const override { return Domain::STORAGE; }
  std::int64_t units(const FailureModeSpec&) const override { return static_cast<std::int64_t>(names_.size()); }
  std::string unit_name(const FailureModeSpec&, int unit) const override {
    return names_.at(static_cast<std::size_t>(unit));
  }
  double job_rate_per_h(const FailureModeSpec&, double, const std::vector<int>&) const override { return 0; }
  void strike(const FailureModeSpec& mode, const Failure& f, std::vector<int>&) override {
    if (changed_) changed_(f.unit, mode.storage_bandwidth_frac);
  }
  void restore(const FailureModeSpec&, const Failure& f) override {
    if (changed_) changed_(f.unit, 1.0);
  }

private:
  std::vector<std::string> names_;
  StoreChanged changed_;
};

constexpr Domain D = Domain::STORAGE;

} // namespace

const DomainEntry& storage_domain_entry() {
  // An object store out of reach keeps its copies: a failure takes nothing with it.
  static const DomainEntry entry{
      D,
      50,
      {{"object_store", D, UnitKind{0}, Reach::NOTHING}},
      "with storage, object_store (one of the /storage object_store tiers is unreachable until repaired: drains "
      "and restores through it fail)",
      [](const ScopeContext& c, std::string_view) -> std::string {
        return c.has_object_store ? ""
                                  : "is a storage element: the scenario needs an object_store tier in /storage/tiers";
      },
      [](const sim::Node& m, const FailureModeSpec& mode) {
        if (mode.kind != FaultKind::FAIL_STOP)
          m.problem("kind", "object stores fail stop (out of reach, or degraded with storage_bandwidth_frac)");
      },
      [](const DomainContext& c) -> std::unique_ptr<FailureDomain> {
        if (c.object_stores.empty()) return nullptr;
        return std::make_unique<StorageDomain>(c.object_stores, c.hooks.object_store);
      }};
  return entry;
}

} // namespace dcsim::failure
