#include "models/hardware/spec.hpp"

#include "models/hardware/catalogue.hpp"

#include <fmt/format.h>

namespace dcsim::hardware {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

std::string_view rack_kind_name(RackKind kind) { return kind == RackKind::NVL72 ? "nvl72" : "hgx"; }

std::string_view precision_name(Precision precision) {
  switch (precision) {
  case Precision::BF16: return "bf16";
  case Precision::FP8: return "fp8";
  case Precision::FP4: return "fp4";
  }
  return "?";
}

double GpuSpec::peak_tflops_at(Precision precision) const {
  switch (precision) {
  case Precision::BF16: return peak_tflops;
  case Precision::FP8: return fp8_tflops;
  case Precision::FP4: return fp4_tflops;
  }
  return 0;
}

sim::Bounds gpu_count(double min) {
  return sim::limited(sim::at_least(min), static_cast<double>(MAX_GPUS), "dcsim's limit of 2^20 GPUs");
}

namespace {
sim::Bounds efficiency() { return sim::Bounds{0.0, 1.0, true, false}; } // in (0, 1]
} // namespace

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
                 "dense BF16 peak: the peak of bf16 jobs (step time, MFU)",
                 sim::positive(), {}, "catalogue's dense BF16 figure of model"},
          KeyDef{"fp8_tflops", ValueType::NUMBER, "TFLOP/s", nullptr,
                 "dense FP8 peak, the peak of fp8 jobs; 0 = the GPU has no FP8", sim::non_negative(), {},
                 "catalogue figure of model"},
          KeyDef{"fp4_tflops", ValueType::NUMBER, "TFLOP/s", nullptr,
                 "dense FP4 peak, the peak of fp4 jobs; 0 = the GPU has no FP4", sim::non_negative(), {},
                 "catalogue figure of model"},
          KeyDef{"power_w", ValueType::NUMBER, "W", nullptr, "board power at full load", sim::positive(), {},
                 "catalogue figure of model"},
          KeyDef{"hbm_gb", ValueType::NUMBER, "GB", nullptr, "HBM capacity (10^9 bytes)", sim::positive(), {},
                 "catalogue figure of model"},
          KeyDef{"hbm_tb_per_s", ValueType::NUMBER, "TB/s", nullptr, "HBM bandwidth", sim::positive(), {},
                 "catalogue figure of model"},
          KeyDef{"nic_gbps", ValueType::NUMBER, "Gb/s", nullptr,
                 "scale-out bandwidth per GPU and direction (all planes together)", sim::positive(), {},
                 "catalogue figure of model"},
          KeyDef{"compute_efficiency_frac", ValueType::NUMBER, "", nullptr,
                 "share of the dense peak that transformer GEMMs reach (step-time model)", efficiency(), {},
                 "catalogue figure of model (fitted on A100, estimated elsewhere)"},
          KeyDef{"hbm_efficiency_frac", ValueType::NUMBER, "", nullptr,
                 "share of the HBM bandwidth that element-wise kernels reach (step-time model)", efficiency(), {},
                 "catalogue figure of model (fitted on A100, estimated elsewhere)"},
          KeyDef{"nvlink_efficiency_frac", ValueType::NUMBER, "", nullptr,
                 "collective bus bandwidth ÷ NVLink bandwidth per direction", efficiency(), {},
                 "catalogue figure of model (estimate)"},
          KeyDef{"nic_efficiency_frac", ValueType::NUMBER, "", nullptr,
                 "collective bus bandwidth ÷ NIC line rate", efficiency(), {}, "catalogue figure of model (estimate)"},
          KeyDef{"nvlink_latency_us", ValueType::NUMBER, "us", nullptr, "latency of one collective step over NVLink",
                 sim::non_negative(), {}, "catalogue figure of model (estimate)"},
          KeyDef{"nic_latency_us", ValueType::NUMBER, "us", nullptr,
                 "latency of one collective step across the scale-out network", sim::non_negative(), {},
                 "catalogue figure of model (estimate)"},
      }};
  return table;
}

const KeyTable& rack_keys() {
  static const KeyTable table{
      "hardware", "/hardware/rack", "one rack: an NVL72 NVLink domain, or HGX servers",
      {
          KeyDef{"kind", ValueType::STRING, "", "nvl72",
                 "nvl72: one 72-GPU NVLink domain per rack; hgx: racks of 8-GPU servers", {}, {"nvl72", "hgx"}},
          KeyDef{"gpus", ValueType::INTEGER, "", 72, "nvl72 only: GPUs per rack", gpu_count(1)},
          KeyDef{"gpus_per_tray", ValueType::INTEGER, "", 4, "nvl72 only: GPUs per compute tray (one node)",
                 gpu_count(1)},
          KeyDef{"spare_gpus", ValueType::INTEGER, "", 0,
                 "nvl72 only: GPUs per rack held back as in-rack spares", gpu_count(0)},
          KeyDef{"power_shelves", ValueType::INTEGER, "", 8,
                 "nvl72 only: power shelves feeding the rack's busbar (8 in GB200/GB300 NVL72 racks: NVIDIA DGX "
                 "GB200 user guide, Supermicro GB300 NVL72 sheet)",
                 sim::Bounds{1, 64, true, true}},
          KeyDef{"power_shelves_needed", ValueType::INTEGER, "", 7,
                 "nvl72 only: shelves the rack needs to run; more down at once take the rack down (7 of 8, N+1, "
                 "is an estimate: set it from the vendor's redundancy scheme)",
                 sim::Bounds{1, 64, true, true}},
          KeyDef{"gpus_per_node", ValueType::INTEGER, "", 8, "hgx only: GPUs per server (one NVLink domain)",
                 gpu_count(1)},
          KeyDef{"nodes_per_rack", ValueType::INTEGER, "", 4, "hgx only: servers per rack", gpu_count(1)},
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
                                         "racks of /hardware/rack/kind (spare racks included)", gpu_count(1)},
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
  spec.gpu.fp8_tflops = gpu.optional_number("fp8_tflops").value_or(kind->fp8_tflops);
  spec.gpu.fp4_tflops = gpu.optional_number("fp4_tflops").value_or(kind->fp4_tflops);
  spec.gpu.power_w = gpu.optional_number("power_w").value_or(kind->power_w);
  spec.gpu.hbm_gb = gpu.optional_number("hbm_gb").value_or(kind->hbm_gb);
  spec.gpu.hbm_tb_per_s = gpu.optional_number("hbm_tb_per_s").value_or(kind->hbm_tb_per_s);
  spec.gpu.nic_gbps = gpu.optional_number("nic_gbps").value_or(kind->nic_gbps);
  spec.gpu.compute_efficiency_frac =
      gpu.optional_number("compute_efficiency_frac").value_or(kind->compute_efficiency_frac);
  spec.gpu.hbm_efficiency_frac = gpu.optional_number("hbm_efficiency_frac").value_or(kind->hbm_efficiency_frac);
  spec.gpu.nvlink_efficiency_frac =
      gpu.optional_number("nvlink_efficiency_frac").value_or(kind->nvlink_efficiency_frac);
  spec.gpu.nic_efficiency_frac = gpu.optional_number("nic_efficiency_frac").value_or(kind->nic_efficiency_frac);
  spec.gpu.nvlink_latency_us = gpu.optional_number("nvlink_latency_us").value_or(kind->nvlink_latency_us);
  spec.gpu.nic_latency_us = gpu.optional_number("nic_latency_us").value_or(kind->nic_latency_us);

  const sim::Node rack = hardware.object("rack", rack_keys());
  RackSpec& r = spec.rack;
  r.kind = rack.string("kind") == "hgx" ? RackKind::HGX : RackKind::NVL72;
  r.gpus = rack.int32("gpus");
  r.gpus_per_tray = rack.int32("gpus_per_tray");
  r.spare_gpus = rack.int32("spare_gpus");
  r.power_shelves = rack.int32("power_shelves");
  r.power_shelves_needed = rack.int32("power_shelves_needed");
  r.gpus_per_node = rack.int32("gpus_per_node");
  r.nodes_per_rack = rack.int32("nodes_per_rack");
  r.nvlink_gbps = rack.optional_number("nvlink_gbps").value_or(kind->nvlink_gbps);

  const char* other = r.kind == RackKind::NVL72 ? "hgx" : "nvl72";
  for (const char* key : r.kind == RackKind::NVL72 ? std::vector<const char*>{"gpus_per_node", "nodes_per_rack"}
                                                   : std::vector<const char*>{"gpus", "gpus_per_tray", "spare_gpus", "power_shelves",
                                                                             "power_shelves_needed"})
    if (rack.has(key))
      rack.problem(key, fmt::format("applies only to racks of kind \"{}\" (kind is \"{}\")", other,
                                    rack_kind_name(r.kind)));
  if (r.kind == RackKind::HGX && static_cast<long long>(r.gpus_per_node) * r.nodes_per_rack > MAX_GPUS) {
    rack.problem("nodes_per_rack", fmt::format("gives racks of more than dcsim's limit of {} GPUs", MAX_GPUS));
    r.nodes_per_rack = 1; // keeps gpus_per_rack() within int while the other problems are found
  }
  if (r.kind == RackKind::NVL72) {
    if (r.gpus % r.gpus_per_tray != 0)
      rack.problem("gpus_per_tray", fmt::format("must divide gpus ({}) into whole trays", r.gpus));
    if (r.spare_gpus >= r.gpus)
      rack.problem("spare_gpus", fmt::format("must leave at least one usable GPU: must be < gpus ({})", r.gpus));
    if (r.power_shelves_needed > r.power_shelves)
      rack.problem("power_shelves_needed", fmt::format("must be <= power_shelves ({})", r.power_shelves));
  }
  return spec;
}

ClusterSpec decode_cluster(const sim::Node& cluster) {
  ClusterSpec spec;
  spec.racks = cluster.int32("racks");
  return spec;
}

} // namespace dcsim::hardware
