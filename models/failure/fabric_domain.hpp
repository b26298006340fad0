// Fabric elements: NIC ports, links (GPU cables and switch-to-switch links), leaves, spines, cores, over
// every plane (fabric/fabric_state.hpp numbers them). A failure lowers the bandwidth left to the GPUs
// behind the element; GPUs left with no path at all are cut off (down until it is back). The
// replica's `changed` hook applies the new state (FabricTracker, jobs' paces) and reports the GPUs cut off.
// A job is interrupted by an element whose failure alone cuts one of its GPUs off:
//   one port per GPU (1 plane × 1 port): each of its GPUs' NIC port and cable    rate_j = λ̄ · |G|
//   one plane: each leaf holding one of its GPUs                                 rate_j = λ̄ · |leaves(G)|
//   otherwise none (faults slow the job: the ledger's `degraded`)                rate_j = 0
#pragma once

#include "models/fabric/fabric_platform.hpp"
#include "models/failure/failure_domain.hpp"

#include <functional>

namespace dcsim::failure {

class FabricDomain final : public FailureDomain {
public:
  /// `changed(e, failed, cut)`: element e just changed state; append the GPUs it cut off to `cut`.
  using Changed = std::function<void(const fabric::Element& e, bool failed, std::vector<int>& cut)>;

  /// `platform` null: the domain answers questions (units, names, rates) but cannot strike.
  FabricDomain(const fabric::FabricState& state, fabric::FabricPlatform* platform, Changed changed = {})
      : state_(&state), platform_(platform), changed_(std::move(changed)) {}

  Domain domain() const override { return Domain::FABRIC; }
  std::int64_t units(const FailureModeSpec& mode) const override { return state_->unit_count(mode.element()); }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override {
    return state_->name(state_->element(mode.element(), unit));
  }
  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override;
  void strike(const FailureModeSpec& mode, const Failure& f, std::vector<int>& cut) override;
  void restore(const FailureModeSpec& mode, const Failure& f) override;

private:
  const fabric::FabricState* state_;
  fabric::FabricPlatform* platform_;
  Changed changed_;
};

} // namespace dcsim::failure
