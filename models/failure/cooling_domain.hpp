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
#pragma once

#include "models/cooling/spec.hpp"
#include "models/failure/failure_domain.hpp"

#include <functional>

namespace dcsim::failure {

class CoolingDomain final : public FailureDomain {
public:
  using Strike = std::function<void(const Failure&)>;

  CoolingDomain(const cooling::CoolingSpec& cooling, const hardware::Layout& layout, Strike strike = {})
      : cooling_(&cooling), layout_(&layout), strike_(std::move(strike)) {}

  Domain domain() const override { return Domain::COOLING; }
  std::int64_t units(const FailureModeSpec& mode) const override {
    return cooling::cooling_unit_count(*cooling_, mode.cooling_element(), layout_->racks());
  }
  std::string unit_name(const FailureModeSpec& mode, int unit) const override;
  double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                        const std::vector<int>& gpus) const override;
  void strike(const FailureModeSpec&, const Failure& f, std::vector<int>&) override { strike_(f); }
  void restore(const FailureModeSpec&, const Failure&) override {}

private:
  const cooling::CoolingSpec* cooling_;
  const hardware::Layout* layout_;
  Strike strike_;
};

} // namespace dcsim::failure
