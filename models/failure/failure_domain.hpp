// A failure domain: one kind of thing failure modes strike (hardware, fabric, cooling, power), as the
// replica sees it. Each domain is one class implementing this interface; the scope words that name its
// unit kinds are in scope_words() (failure/spec.cpp), and make_failure_domain (failure_domains.cpp) builds
// it: adding a domain is one class, its scope words, one Domain value (the compiler's -Wswitch then lists
// the switches that must learn of it) and its spec keys.
//
// What a domain answers:
//   units          the population of a mode's unit kind (one failure process per mode strikes these)
//   unit_name      the unit's name in events.csv
//   job_rate_per_h the expected rate of the mode's failures that interrupt a job on a set of GPUs, given
//                  the mean rate of one unit λ̄ (lemons included: the caller computes λ̄, so no domain can
//                  forget them). For units whose failure alone takes a job's GPUs down it is λ̄ times the
//                  number of such units; domains with redundancy derive their own (power_shelf_domain.hpp).
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
#include <array>
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

/// Every domain, in Domain order.
inline constexpr std::array<Domain, 5> DOMAINS = {Domain::HARDWARE, Domain::FABRIC, Domain::COOLING, Domain::POWER,
                                                  Domain::STORAGE};

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

/// The scenario's domains, indexed by Domain (null where the scenario has none: no fabric, no cooling).
std::vector<std::unique_ptr<FailureDomain>> make_failure_domains(const hardware::HardwareSpec& hardware,
                                                                 const hardware::Layout& layout,
                                                                 const fabric::FabricState* fabric,
                                                                 const cooling::CoolingSpec* cooling,
                                                                 const std::vector<std::string>& object_stores = {},
                                                                 DomainHooks hooks = {});

/// Expected rate (per hour) of failures interrupting a job on `gpus`: Σ over modes of
/// domain.job_rate_per_h(mode, λ̄_mode, gpus), with `domains[d]` the domain of Domain d (null: absent).
double job_failure_rate_per_h(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout,
                              const std::vector<std::unique_ptr<FailureDomain>>& domains,
                              const std::vector<int>& gpus);

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
