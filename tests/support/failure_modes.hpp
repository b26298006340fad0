// Test support: failure modes of a few scopes, as the storage tests ask which copies survive them, and
// an NVL72 rack with power shelves, as the failure domains' tests build one.
#pragma once

#include "models/cooling/spec.hpp"
#include "models/failure/spec.hpp"
#include "models/hardware/spec.hpp"

#include <string>

namespace dcsim::test {

inline failure::FailureModeSpec failure_mode(const std::string& name, failure::Domain domain, failure::UnitKind unit_kind) {
  failure::FailureModeSpec m;
  m.name = name;
  m.scope_name = name;
  m.domain = domain;
  m.unit_kind = unit_kind;
  return m;
}

/// A GPU fault (its node's memory lost), a rack's loss, a fabric link (nothing lost), a cooling loop (many racks).
inline const failure::FailureModeSpec GPU_FAULT =
    failure_mode("gpu", failure::Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::GPU));
inline const failure::FailureModeSpec RACK_FAULT =
    failure_mode("rack", failure::Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::RACK));
inline const failure::FailureModeSpec LINK_FAULT =
    failure_mode("link", failure::Domain::FABRIC, failure::unit_kind_of(fabric::ElementKind::LINK));
inline const failure::FailureModeSpec LOOP_FAULT =
    failure_mode("loop", failure::Domain::COOLING, failure::unit_kind_of(cooling::CoolingElement::LOOP));

/// An NVL72 rack (72 GPUs, 4 per tray) with `shelves` power shelves of which `needed` must be up.
inline hardware::HardwareSpec nvl72_with_shelves(int shelves, int needed) {
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  h.rack.gpus = 72;
  h.rack.gpus_per_tray = 4;
  h.rack.power_shelves = shelves;
  h.rack.power_shelves_needed = needed;
  return h;
}

} // namespace dcsim::test
