#include "models/hardware/layout.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <stdexcept>

namespace dcsim::hardware {

std::string_view scope_name(Scope scope) {
  switch (scope) {
  case Scope::GPU: return "gpu";
  case Scope::TRAY: return "tray";
  case Scope::NODE: return "node";
  case Scope::RACK: return "rack";
  }
  return "?";
}

Layout::Layout(const HardwareSpec& hardware, const ClusterSpec& cluster)
    : kind_(hardware.rack.kind), racks_(cluster.racks), gpus_per_rack_(hardware.rack.gpus_per_rack()),
      gpus_per_node_(hardware.rack.node_gpus()),
      domain_gpus_(kind_ == RackKind::NVL72 ? hardware.rack.gpus : hardware.rack.gpus_per_node),
      domain_spare_gpus_(kind_ == RackKind::NVL72 ? hardware.rack.spare_gpus : 0) {}

bool Layout::has_scope(Scope scope) const { return scope != Scope::TRAY || kind_ == RackKind::NVL72; }

int Layout::unit_gpus(Scope scope) const {
  switch (scope) {
  case Scope::GPU: return 1;
  case Scope::TRAY:
  case Scope::NODE: return gpus_per_node_;
  case Scope::RACK: return gpus_per_rack_;
  }
  throw std::logic_error("unit_gpus: bad scope");
}

GpuRange Layout::unit_range(Scope scope, int unit) const {
  const int n = unit_gpus(scope);
  return {unit * n, n};
}

std::string Layout::rack_name(int rack) const { return fmt::format(FMT_COMPILE("rack{:04d}"), rack); }

std::string Layout::gpu_name(int gpu) const {
  const int rack = rack_of(gpu);
  const int slot = gpu % gpus_per_rack_;
  const int node = slot / gpus_per_node_;
  const int local = slot % gpus_per_node_;
  if (kind_ == RackKind::NVL72) return fmt::format(FMT_COMPILE("rack{:04d}/tray{:02d}/gpu{}"), rack, node, local);
  return fmt::format(FMT_COMPILE("rack{:04d}/node{}/gpu{}"), rack, node, local);
}

std::string Layout::domain_name(int domain) const {
  if (kind_ == RackKind::NVL72) return rack_name(domain);
  const int first = domain * domain_gpus_;
  return fmt::format(FMT_COMPILE("rack{:04d}/node{}"), rack_of(first), (first % gpus_per_rack_) / gpus_per_node_);
}

std::string Layout::unit_name(Scope scope, int unit) const {
  const GpuRange r = unit_range(scope, unit);
  switch (scope) {
  case Scope::GPU: return gpu_name(r.first);
  case Scope::RACK: return rack_name(unit);
  case Scope::TRAY:
  case Scope::NODE: {
    const int slot = r.first % gpus_per_rack_;
    return fmt::format("rack{:04d}/{}{}", rack_of(r.first), kind_ == RackKind::NVL72 ? "tray" : "node",
                       kind_ == RackKind::NVL72 ? fmt::format("{:02d}", slot / gpus_per_node_)
                                                : fmt::format("{}", slot / gpus_per_node_));
  }
  }
  return "?";
}

} // namespace dcsim::hardware
