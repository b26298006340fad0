// The failure domains' factory and the job failure rate over every domain; each domain's own
// equations are in its header.
#include "models/failure/cooling_domain.hpp"
#include "models/failure/fabric_domain.hpp"
#include "models/failure/failure_domain.hpp"
#include "models/failure/hardware_domain.hpp"
#include "models/failure/power_shelf_domain.hpp"
#include "models/failure/storage_domain.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dcsim::failure {

std::vector<std::unique_ptr<FailureDomain>> make_failure_domains(const hardware::HardwareSpec& hardware,
                                                                 const hardware::Layout& layout,
                                                                 const fabric::FabricState* fabric,
                                                                 const cooling::CoolingSpec* cooling,
                                                                 const std::vector<std::string>& object_stores,
                                                                 DomainHooks hooks) {
  std::vector<std::unique_ptr<FailureDomain>> domains(DOMAINS.size());
  for (Domain d : DOMAINS) {
    auto& slot = domains[static_cast<std::size_t>(d)];
    switch (d) {
    case Domain::HARDWARE:
      slot = std::make_unique<HardwareDomain>(layout);
      break;
    case Domain::FABRIC:
      if (fabric) slot = std::make_unique<FabricDomain>(*fabric, hooks.fabric_platform, hooks.fabric_changed);
      break;
    case Domain::COOLING:
      if (cooling) slot = std::make_unique<CoolingDomain>(*cooling, layout, hooks.cooling_strike);
      break;
    case Domain::POWER:
      if (hardware.rack.kind == hardware::RackKind::NVL72)
        slot = std::make_unique<PowerShelfDomain>(hardware.rack, layout, hooks.rack_power);
      break;
    case Domain::STORAGE:
      if (!object_stores.empty()) slot = std::make_unique<StorageDomain>(object_stores, hooks.object_store);
      break;
    }
  }
  return domains;
}

double job_failure_rate_per_h(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout,
                              const std::vector<std::unique_ptr<FailureDomain>>& domains,
                              const std::vector<int>& gpus) {
  double rate = 0;
  for (const auto& mode : modes) {
    const auto& domain = domains.at(static_cast<std::size_t>(mode.domain));
    if (!domain)
      throw std::logic_error(fmt::format("failure mode {}: the scenario has no {} domain (the scenario checks "
                                         "should have said so)",
                                         mode.name, domain_name(mode.domain)));
    rate += domain->job_rate_per_h(mode, mode.mean_unit_rate_per_h(layout), gpus);
  }
  return rate;
}

// --- Hardware -----------------------------------------------------------------------------------------

double HardwareDomain::job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                                      const std::vector<int>& gpus) const {
  const auto units = distinct_of(gpus, [&](int g) { return layout_->unit_of(mode.scope(), g); });
  return unit_rate_per_h * static_cast<double>(units.size());
}

// --- Fabric -------------------------------------------------------------------------------------------

double FabricDomain::job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                                    const std::vector<int>& gpus) const {
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

void FabricDomain::strike(const FailureModeSpec& mode, const Failure& f, std::vector<int>& cut) {
  const fabric::Element e = state_->element(mode.element(), f.unit);
  if (platform_->fail(e)) changed_(e, true, cut);
}

void FabricDomain::restore(const FailureModeSpec& mode, const Failure& f) {
  const fabric::Element e = state_->element(mode.element(), f.unit);
  std::vector<int> none;
  if (platform_->restore(e)) changed_(e, false, none);
}

// --- Cooling ------------------------------------------------------------------------------------------

std::string CoolingDomain::unit_name(const FailureModeSpec& mode, int unit) const {
  return cooling::cooling_unit_name(*cooling_, mode.cooling_element(), unit,
                                    [this](int rack) { return layout_->rack_name(rack); });
}

double CoolingDomain::job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                                     const std::vector<int>& gpus) const {
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

// --- Power shelves ------------------------------------------------------------------------------------

PowerShelfDomain::PowerShelfDomain(const hardware::RackSpec& rack, const hardware::Layout& layout,
                                   RackChanged rack_changed)
    : layout_(&layout), shelves_(rack.power_shelves), needed_(rack.power_shelves_needed),
      rack_changed_(std::move(rack_changed)), down_(static_cast<std::size_t>(layout.racks()), 0) {}

std::string PowerShelfDomain::unit_name(const FailureModeSpec&, int unit) const {
  return fmt::format("{}/shelf{}", layout_->rack_name(unit / shelves_), unit % shelves_);
}

double PowerShelfDomain::job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                                        const std::vector<int>& gpus) const {
  const int n = shelves_, r = shelves_ - needed_;
  const double down_h = mode.detect_s / sim::S_PER_H + mode.repair_h;
  double states = 1; // C(n, r)
  for (int i = 1; i <= r; ++i)
    states = states * (n - r + i) / i;
  const double rack_rate = states * (n - r) * unit_rate_per_h * std::pow(unit_rate_per_h * down_h, r);
  const auto racks = distinct_of(gpus, [&](int g) { return layout_->rack_of(g); });
  return rack_rate * static_cast<double>(racks.size());
}

void PowerShelfDomain::strike(const FailureModeSpec&, const Failure& f, std::vector<int>& cut) {
  const int rack = f.unit / shelves_;
  const bool was_down = rack_down(rack);
  ++down_[static_cast<std::size_t>(rack)];
  if (was_down || !rack_down(rack)) return;
  const hardware::GpuRange gpus = layout_->unit_range(hardware::Scope::RACK, rack);
  for (int g = gpus.first; g < gpus.end(); ++g)
    cut.push_back(g);
  rack_changed_(rack, true);
}

void PowerShelfDomain::restore(const FailureModeSpec&, const Failure& f) {
  const int rack = f.unit / shelves_;
  const bool was_down = rack_down(rack);
  if (--down_[static_cast<std::size_t>(rack)] < 0)
    throw std::logic_error("PowerShelfDomain: a shelf came back that was not down");
  if (was_down && !rack_down(rack)) rack_changed_(rack, false);
}

} // namespace dcsim::failure
