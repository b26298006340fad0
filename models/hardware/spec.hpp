// Hardware and cluster specs: GPU figures, rack kind and size.
//
// Two rack kinds:
//   nvl72  one NVLink domain per rack: `gpus` GPUs (72) in compute trays of `gpus_per_tray` (4), each
//          tray one OS node; `spare_gpus` per rack are held back as in-rack spares (64 + 8 is common).
//   hgx    racks of `nodes_per_rack` servers of `gpus_per_node` GPUs; each server is its own NVLink
//          domain (H100/A100-era designs).
// `peak_tflops` is the peak of bf16 jobs (step time, MFU); GPUs do no computation in SimGrid.
// Every GPU figure defaults to the catalogue entry of `model` (models/hardware/catalogue.hpp, with
// sources and estimates).
#pragma once

#include "sim/json_reader.hpp"

#include <string>

namespace dcsim::hardware {

/// The most GPUs a scenario may have (memory: with a fabric, a SimGrid host and its access link cost ~3 KB). Every count of
/// GPUs or racks in a scenario is bounded by it, so products of two counts fit 64 bits.
inline constexpr long long MAX_GPUS = 1 << 20;
/// Bounds of a count of GPUs, racks or servers: >= min, at most MAX_GPUS.
sim::Bounds gpu_count(double min);

enum class RackKind { NVL72, HGX };
std::string_view rack_kind_name(RackKind kind);

/// Arithmetic precision of a job's matrix multiplications; selects the GPU's peak.
enum class Precision { BF16, FP8, FP4 };
std::string_view precision_name(Precision precision);

struct GpuSpec {
  std::string model;
  double peak_tflops = 0; ///< dense BF16 peak, of bf16 jobs and the results' peak, TFLOP/s
  double fp8_tflops = 0;  ///< dense FP8 peak, TFLOP/s (0: unsupported)
  double fp4_tflops = 0;  ///< dense FP4 peak, TFLOP/s (0: unsupported)
  double power_w = 0;
  double hbm_gb = 0;
  double hbm_tb_per_s = 0;            ///< HBM bandwidth, TB/s
  double nic_gbps = 0;                ///< scale-out bandwidth per GPU (per direction), Gb/s
  double compute_efficiency_frac = 0; ///< achievable share of the dense peak for GEMMs
  double hbm_efficiency_frac = 0;     ///< achievable share of HBM bandwidth for element-wise kernels
  double nvlink_efficiency_frac = 0;  ///< collective bus bandwidth ÷ NVLink bandwidth per direction
  double nic_efficiency_frac = 0;     ///< collective bus bandwidth ÷ NIC line rate
  double nvlink_latency_us = 0;       ///< per-step latency of a collective over NVLink, µs
  double nic_latency_us = 0;          ///< per-step latency of a collective across the scale-out network, µs

  /// Dense peak at a precision, TFLOP/s (0 when the GPU lacks it).
  double peak_tflops_at(Precision precision) const;
};

struct RackSpec {
  RackKind kind = RackKind::NVL72;
  int gpus = 72;          ///< nvl72: GPUs per rack
  int gpus_per_tray = 4;  ///< nvl72: GPUs per compute tray (= per node)
  int spare_gpus = 0;     ///< nvl72: GPUs per rack held back as in-rack spares
  int power_shelves = 8;        ///< nvl72: power shelves feeding the rack's busbar
  int power_shelves_needed = 7; ///< nvl72: shelves the rack needs to run (the others are redundancy)
  int gpus_per_node = 8;  ///< hgx: GPUs per server
  int nodes_per_rack = 4; ///< hgx: servers per rack
  double nvlink_gbps = 0; ///< NVLink bandwidth per GPU (both directions), Gb/s

  int gpus_per_rack() const { return kind == RackKind::NVL72 ? gpus : gpus_per_node * nodes_per_rack; }
  int node_gpus() const { return kind == RackKind::NVL72 ? gpus_per_tray : gpus_per_node; }
  /// GPUs of one NVLink domain (nvl72: the rack; hgx: a server).
  int domain_gpus() const { return kind == RackKind::NVL72 ? gpus : gpus_per_node; }
  /// GPUs of one NVLink domain a job may use (the in-rack spares excluded).
  int domain_usable_gpus() const { return kind == RackKind::NVL72 ? gpus - spare_gpus : gpus_per_node; }
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
