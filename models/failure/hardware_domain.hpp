// Hardware units: GPUs, compute trays, nodes (an HGX server or an NVL72 tray), racks. A unit is a range of
// GPUs (hardware::Layout::unit_range) that a fail-stop or hang failure takes down at once; its repair
// (Mission Control) brings them back. A job on GPUs G is exposed to every unit holding one of them:
//   rate_j = λ̄ · |{ unit(g) : g ∈ G }|
#pragma once

#include "models/failure/failure_domain.hpp"

namespace dcsim::failure {

class HardwareDomain final : public FailureDomain {
public:
  explicit HardwareDomain(const hardware::Layout& layout) : layout_(&layout) {}

  Domain domain() const override { return Domain::HARDWARE; }
  std::int64_t units(const FailureModeSpec& mode) const override { return layout_->unit_count(mode.scope()); }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override {
    return layout_->unit_name(mode.scope(), unit);
  }
  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override;
  void strike(const FailureModeSpec&, const Failure&, std::vector<int>&) override {}
  void restore(const FailureModeSpec&, const Failure&) override {}

private:
  const hardware::Layout* layout_;
};

} // namespace dcsim::failure
