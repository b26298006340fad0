// Indexing of the cluster's hardware: GPUs, trays/nodes, racks, NVLink domains, failure scopes.
//
// GPUs are numbered densely, rack by rack:  gpu = rack * gpus_per_rack + slot.
//   nvl72:  slot = tray * gpus_per_tray + i          domain = rack, node = tray
//   hgx:    slot = node_in_rack * gpus_per_node + i  domain = node
//
//   rack0000 ┌──────────────── NVLink switch ────────────────┐   (nvl72: one domain per rack)
//            tray00[g0 g1 g2 g3] tray01[g4..g7] ... tray17[g68..g71]
//
// Every failure scope of the hardware (gpu, tray, node, rack) is a contiguous range of GPU indices,
// which keeps failure injection and health checks O(unit size).
// Names are hierarchical and zero-padded: rack0003/tray07/gpu2, rack0003/node1/gpu5.
#pragma once

#include "models/hardware/spec.hpp"

#include <string>
#include <string_view>

namespace dcsim::hardware {

enum class Scope { GPU, TRAY, NODE, RACK };
std::string_view scope_name(Scope scope);

/// A contiguous range of GPU indices.
struct GpuRange {
  int first = 0;
  int count = 0;
  int end() const { return first + count; }
};

class Layout {
public:
  Layout(const HardwareSpec& hardware, const ClusterSpec& cluster);

  RackKind kind() const { return kind_; }
  int racks() const { return racks_; }
  int gpus() const { return racks_ * gpus_per_rack_; }
  int gpus_per_rack() const { return gpus_per_rack_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int nodes() const { return gpus() / gpus_per_node_; }

  /// NVLink domains: racks for nvl72, servers for hgx.
  int domains() const { return gpus() / domain_gpus_; }
  int domain_gpus() const { return domain_gpus_; }
  /// GPUs of a domain a job may use; the others are in-domain spares.
  int domain_usable_gpus() const { return domain_gpus_ - domain_spare_gpus_; }
  /// Whole domains a job of `gpus` GPUs needs (its last share may be partial).
  int domains_for(int gpus) const { return (gpus + domain_usable_gpus() - 1) / domain_usable_gpus(); }
  int domain_of(int gpu) const { return gpu / domain_gpus_; }
  GpuRange domain_range(int domain) const { return {domain * domain_gpus_, domain_gpus_}; }
  int rack_of(int gpu) const { return gpu / gpus_per_rack_; }
  int rack_of_domain(int domain) const { return domain * domain_gpus_ / gpus_per_rack_; }

  /// Whether a scope exists for this rack kind (tray: nvl72 only).
  bool has_scope(Scope scope) const;
  int unit_count(Scope scope) const { return gpus() / unit_gpus(scope); }
  int unit_gpus(Scope scope) const;
  GpuRange unit_range(Scope scope, int unit) const;
  int unit_of(Scope scope, int gpu) const { return gpu / unit_gpus(scope); }

  std::string gpu_name(int gpu) const;
  std::string rack_name(int rack) const;
  std::string domain_name(int domain) const;
  std::string unit_name(Scope scope, int unit) const;

private:
  RackKind kind_;
  int racks_;
  int gpus_per_rack_;
  int gpus_per_node_; ///< nvl72: GPUs per tray
  int domain_gpus_;
  int domain_spare_gpus_;
};

} // namespace dcsim::hardware
