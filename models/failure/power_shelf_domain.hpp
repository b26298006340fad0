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
// lengthens D).
#pragma once

#include "models/failure/failure_domain.hpp"
#include "models/hardware/spec.hpp"

#include <functional>

namespace dcsim::failure {

class PowerShelfDomain final : public FailureDomain {
public:
  /// `rack_changed(rack, down)`: the rack lost power (down) or has it back; the caller takes its GPUs down
  /// or up. Its GPUs are also reported as cut by strike().
  using RackChanged = std::function<void(int rack, bool down)>;

  PowerShelfDomain(const hardware::RackSpec& rack, const hardware::Layout& layout, RackChanged rack_changed = {});

  Domain domain() const override { return Domain::POWER; }
  std::int64_t units(const FailureModeSpec&) const override {
    return static_cast<std::int64_t>(layout_->racks()) * shelves_;
  }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override;
  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override;
  void strike(const FailureModeSpec& mode, const Failure& f, std::vector<int>& cut) override;
  void restore(const FailureModeSpec& mode, const Failure& f) override;

  int shelves_down(int rack) const { return down_[static_cast<std::size_t>(rack)]; }
  bool rack_down(int rack) const { return shelves_down(rack) > shelves_ - needed_; }

private:
  const hardware::Layout* layout_;
  int shelves_, needed_;
  RackChanged rack_changed_;
  std::vector<int> down_; ///< shelves down per rack
};

} // namespace dcsim::failure
