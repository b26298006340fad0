// A failure domain: one kind of thing failure modes strike (hardware, fabric, cooling, power, storage), as
// the replica sees it. Each domain is one file under failure/domains/ holding its class (implementing this
// interface) and its registry entry (failure/domain_registry.hpp: its name, scope words and checks); the
// build registers every file there, so adding a domain is that file and its test (docs/architecture.md,
// "Add a failure domain").
//
// What a domain answers:
//   units          the population of a mode's unit kind (one failure process per mode strikes these)
//   unit_name      the unit's name in events.csv
//   job_rate_per_h the expected rate of the mode's failures that interrupt a job on a set of GPUs, given
//                  the mean rate of one unit λ̄ (lemons included: the caller computes λ̄, so no domain can
//                  forget them). For units whose failure alone takes a job's GPUs down it is λ̄ times the
//                  number of such units; domains with redundancy derive their own (domains/power_shelf_domain.cpp).
//   strike         a unit failed: the domain's state changes; GPUs it cuts off (down until the unit is
//                  back) are appended to `cut`. Hardware units need nothing here: their own GPUs are taken
//                  down by the injector (FailureModeSpec::takes_down).
//   restore        the unit is back in service.
// Mission Control (ops/mission_control.hpp) detects and repairs every domain's faults.
#pragma once

#include "models/failure/injector.hpp"
#include "models/failure/spec.hpp"
#include "models/fabric/fabric_platform.hpp"
#include "models/hardware/spec.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dcsim::failure {

class FailureDomain {
public:
  virtual ~FailureDomain() = default;

  virtual Domain domain() const = 0;
  virtual std::int64_t units(const FailureModeSpec& mode) const = 0;
  virtual std::string unit_name(const FailureModeSpec& mode, int unit) const = 0;
  virtual double job_rate_per_h(const FailureModeSpec& mode, double unit_rate_per_h,
                                const std::vector<int>& gpus) const = 0;
  virtual void strike(const FailureModeSpec& mode, const Failure& f, std::vector<int>& cut) = 0;
  virtual void restore(const FailureModeSpec& mode, const Failure& f) = 0;
};

/// What the runtime domains act on (absent members: the domains answer questions but cannot strike).
struct DomainHooks {
  fabric::FabricPlatform* fabric_platform = nullptr;
  /// Fabric element changed: apply, append the GPUs it cut off.
  std::function<void(const fabric::Element& e, bool failed, std::vector<int>& cut)> fabric_changed;
  std::function<void(const Failure&)> cooling_strike; ///< a cooling fault, for the facility
  std::function<void(int rack, bool down)> rack_power; ///< a rack lost its power (down) or has it back
  /// an object store keeps this share of its bandwidth (0: out of reach, 1: repaired)
  std::function<void(int store, double bandwidth_frac)> object_store;
};

/// What the scenario offers the domains' factories (absent parts are null or empty).
struct DomainContext {
  const hardware::HardwareSpec* hardware = nullptr;
  const hardware::Layout* layout = nullptr;
  const fabric::FabricState* fabric = nullptr;
  const cooling::CoolingSpec* cooling = nullptr;
  std::vector<std::string> object_stores;
  DomainHooks hooks;
};

/// The scenario's domains, in registry order (a domain the scenario has none of, no fabric say, is absent).
class FailureDomains {
public:
  FailureDomains() = default;
  explicit FailureDomains(std::vector<std::unique_ptr<FailureDomain>> domains) : domains_(std::move(domains)) {}
  /// The domain of that name, or null.
  FailureDomain* find(Domain domain) const;
  /// The mode's domain (std::logic_error where the scenario has none: its checks should have said so).
  FailureDomain& of(const FailureModeSpec& mode) const;

private:
  std::vector<std::unique_ptr<FailureDomain>> domains_;
};

/// Builds every registered domain the scenario has.
FailureDomains make_failure_domains(const hardware::HardwareSpec& hardware, const hardware::Layout& layout,
                                    const fabric::FabricState* fabric, const cooling::CoolingSpec* cooling,
                                    const std::vector<std::string>& object_stores = {}, DomainHooks hooks = {});

/// Expected rate (per hour) of failures interrupting a job on `gpus`: Σ over modes of
/// domain.job_rate_per_h(mode, λ̄_mode, gpus).
double job_failure_rate_per_h(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout,
                              const FailureDomains& domains, const std::vector<int>& gpus);

/// Distinct values of f(g) over `gpus`.
template <typename F> std::vector<int> distinct_of(const std::vector<int>& gpus, F f) {
  std::vector<int> out;
  out.reserve(gpus.size());
  for (int g : gpus)
    out.push_back(f(g));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace dcsim::failure
