// Hardware and cluster specs: GPU figures, rack kind and size.
//
// Two rack kinds:
//   nvl72  one NVLink domain per rack: `gpus` GPUs (72) in compute trays of `gpus_per_tray` (4), each
//          tray one OS node; `spare_gpus` per rack are held back as in-rack spares (64 + 8 is common).
//   hgx    racks of `nodes_per_rack` servers of `gpus_per_node` GPUs; each server is its own NVLink
//          domain (H100/A100-era designs).
// A GPU's SimGrid speed is its peak FLOP/s (`peak_tflops` x 1e12).
#pragma once

#include "sim/json_reader.hpp"

#include <string>

namespace dcsim::hardware {

enum class RackKind { NVL72, HGX };
std::string_view rack_kind_name(RackKind kind);

struct GpuSpec {
  std::string model;
  double peak_tflops = 0; ///< dense peak used for MFU and as SimGrid host speed, TFLOP/s
  double power_w = 0;
  double hbm_gb = 0;
  double nic_gbps = 0;    ///< scale-out NIC bandwidth per GPU (all ports), Gb/s
};

struct RackSpec {
  RackKind kind = RackKind::NVL72;
  int gpus = 72;          ///< nvl72: GPUs per rack
  int gpus_per_tray = 4;  ///< nvl72: GPUs per compute tray (= per node)
  int spare_gpus = 0;     ///< nvl72: GPUs per rack held back as in-rack spares
  int gpus_per_node = 8;  ///< hgx: GPUs per server
  int nodes_per_rack = 4; ///< hgx: servers per rack
  double nvlink_gbps = 0; ///< NVLink bandwidth per GPU (both directions), Gb/s

  int gpus_per_rack() const { return kind == RackKind::NVL72 ? gpus : gpus_per_node * nodes_per_rack; }
  int node_gpus() const { return kind == RackKind::NVL72 ? gpus_per_tray : gpus_per_node; }
};

struct HardwareSpec {
  GpuSpec gpu;
  RackSpec rack;
};

struct ClusterSpec {
  int racks = 0;
};

const sim::KeyTable& hardware_keys();
const sim::KeyTable& gpu_keys();
const sim::KeyTable& rack_keys();
const sim::KeyTable& cluster_keys();

HardwareSpec decode_hardware(const sim::Node& hardware);
ClusterSpec decode_cluster(const sim::Node& cluster);

} // namespace dcsim::hardware
