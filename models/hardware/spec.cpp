#include "models/hardware/spec.hpp"

#include "models/hardware/catalogue.hpp"

#include <fmt/format.h>

namespace dcsim::hardware {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

std::string_view rack_kind_name(RackKind kind) { return kind == RackKind::NVL72 ? "nvl72" : "hgx"; }

const KeyTable& hardware_keys() {
  static const KeyTable table{
      "hardware", "/hardware", "GPU and rack hardware",
      {
          KeyDef{"gpu", ValueType::OBJECT, "", Json::object(), "GPU kind and figures (see /hardware/gpu)"},
          KeyDef{"rack", ValueType::OBJECT, "", Json::object(), "rack kind and size (see /hardware/rack)"},
      }};
  return table;
}

const KeyTable& gpu_keys() {
  static const KeyTable table{
      "hardware", "/hardware/gpu", "one GPU; figures default to the catalogue entry named by model",
      {
          KeyDef{"model", ValueType::STRING, "", "rubin", "GPU kind from the catalogue", {}, gpu_kind_names()},
          KeyDef{"peak_tflops", ValueType::NUMBER, "TFLOP/s", nullptr,
                 "dense peak FLOP/s used for MFU and as the SimGrid host speed", sim::positive(), {},
                 "catalogue's dense BF16 figure of model"},
          KeyDef{"power_w", ValueType::NUMBER, "W", nullptr, "board power at full load", sim::positive(), {},
                 "catalogue figure of model"},
          KeyDef{"hbm_gb", ValueType::NUMBER, "GB", nullptr, "HBM capacity", sim::positive(), {},
                 "catalogue figure of model"},
          KeyDef{"nic_gbps", ValueType::NUMBER, "Gb/s", nullptr,
                 "scale-out NIC bandwidth per GPU, all ports together (the fabric may use less)", sim::positive(),
                 {}, "catalogue figure of model"},
      }};
  return table;
}

const KeyTable& rack_keys() {
  static const KeyTable table{
      "hardware", "/hardware/rack", "one rack: an NVL72 NVLink domain, or HGX servers",
      {
          KeyDef{"kind", ValueType::STRING, "", "nvl72",
                 "nvl72: one 72-GPU NVLink domain per rack; hgx: racks of 8-GPU servers", {}, {"nvl72", "hgx"}},
          KeyDef{"gpus", ValueType::INTEGER, "", 72, "nvl72 only: GPUs per rack", sim::at_least(1)},
          KeyDef{"gpus_per_tray", ValueType::INTEGER, "", 4, "nvl72 only: GPUs per compute tray (one node)",
                 sim::at_least(1)},
          KeyDef{"spare_gpus", ValueType::INTEGER, "", 0,
                 "nvl72 only: GPUs per rack held back as in-rack spares", sim::non_negative()},
          KeyDef{"gpus_per_node", ValueType::INTEGER, "", 8, "hgx only: GPUs per server (one NVLink domain)",
                 sim::at_least(1)},
          KeyDef{"nodes_per_rack", ValueType::INTEGER, "", 4, "hgx only: servers per rack", sim::at_least(1)},
          KeyDef{"nvlink_gbps", ValueType::NUMBER, "Gb/s", nullptr,
                 "NVLink bandwidth per GPU, both directions summed as datasheets quote it", sim::positive(), {},
                 "catalogue figure of /hardware/gpu/model"},
      }};
  return table;
}

const KeyTable& cluster_keys() {
  static const KeyTable table{"cluster",
                              "/cluster",
                              "how many racks the datacenter has",
                              {
                                  KeyDef{"racks", ValueType::INTEGER, "", nullptr,
                                         "racks of /hardware/rack/kind (spare racks included)", sim::at_least(1)},
                              }};
  return table;
}

HardwareSpec decode_hardware(const sim::Node& hardware) {
  HardwareSpec spec;
  const sim::Node gpu = hardware.object("gpu", gpu_keys());
  spec.gpu.model = gpu.string("model");
  const GpuKind* kind = find_gpu_kind(spec.gpu.model);
  if (!kind) kind = find_gpu_kind("rubin"); // the bad name is already reported
  spec.gpu.peak_tflops = gpu.optional_number("peak_tflops").value_or(kind->bf16_tflops);
  spec.gpu.power_w = gpu.optional_number("power_w").value_or(kind->power_w);
  spec.gpu.hbm_gb = gpu.optional_number("hbm_gb").value_or(kind->hbm_gb);
  spec.gpu.nic_gbps = gpu.optional_number("nic_gbps").value_or(kind->nic_gbps);

  const sim::Node rack = hardware.object("rack", rack_keys());
  RackSpec& r = spec.rack;
  r.kind = rack.string("kind") == "hgx" ? RackKind::HGX : RackKind::NVL72;
  r.gpus = static_cast<int>(rack.integer("gpus"));
  r.gpus_per_tray = static_cast<int>(rack.integer("gpus_per_tray"));
  r.spare_gpus = static_cast<int>(rack.integer("spare_gpus"));
  r.gpus_per_node = static_cast<int>(rack.integer("gpus_per_node"));
  r.nodes_per_rack = static_cast<int>(rack.integer("nodes_per_rack"));
  r.nvlink_gbps = rack.optional_number("nvlink_gbps").value_or(kind->nvlink_gbps);

  const char* other = r.kind == RackKind::NVL72 ? "hgx" : "nvl72";
  for (const char* key : r.kind == RackKind::NVL72 ? std::vector<const char*>{"gpus_per_node", "nodes_per_rack"}
                                                   : std::vector<const char*>{"gpus", "gpus_per_tray", "spare_gpus"})
    if (rack.has(key))
      rack.problem(key, fmt::format("applies only to racks of kind \"{}\" (kind is \"{}\")", other,
                                    rack_kind_name(r.kind)));
  if (r.kind == RackKind::NVL72) {
    if (r.gpus % r.gpus_per_tray != 0)
      rack.problem("gpus_per_tray", fmt::format("must divide gpus ({}) into whole trays", r.gpus));
    if (r.spare_gpus >= r.gpus)
      rack.problem("spare_gpus", fmt::format("must leave at least one usable GPU: must be < gpus ({})", r.gpus));
  }
  return spec;
}

ClusterSpec decode_cluster(const sim::Node& cluster) {
  ClusterSpec spec;
  spec.racks = static_cast<int>(cluster.integer("racks"));
  return spec;
}

} // namespace dcsim::hardware
