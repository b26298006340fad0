// Object stores (/storage tiers of kind object_store), failing as a unit: scope `object_store`, one unit
// per such tier, in /storage/tiers order, named after the tier (docs/recovery.md, "Storage faults").
// A failure makes the store unreachable until it is repaired (an outage: its copies are not lost, an
// erasure-coded store keeps them): drains into it and restores from it fail meanwhile
// (storage/storage_traffic.hpp says what a job does then). With the mode's storage_bandwidth_frac f > 0
// the store is degraded instead (lost storage nodes, a rebuild): it keeps f of its bandwidth, so flows
// through it slow down and share less. No GPU goes down and no job is interrupted,
// so the expected rate of interruptions it adds to a job is 0; what it costs shows as checkpoints lost
// to later failures and longer restores.
#pragma once

#include "models/failure/failure_domain.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dcsim::failure {

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

} // namespace dcsim::failure
