// The GPU figures the serving model needs, as one plain struct.
//
// Filled from the hardware catalogue (models/hardware/catalogue.hpp and docs/hardware.md: one source per
// figure there) and the rack: the NVLink domain's size, NVLink bandwidth per direction (the catalogue
// quotes both directions: ÷ 2), the NIC per direction.
// HGX systems are domains of 8 GPUs; NVL72 racks of 72.
#pragma once

#include "models/hardware/catalogue.hpp"
#include "models/hardware/spec.hpp"

#include <string>
#include <string_view>

namespace dcsim::serving {

struct GpuFigures {
  std::string name;
  double bf16_tflops = 0;  ///< dense, TFLOP/s
  double fp8_tflops = 0;   ///< dense, TFLOP/s (0: none)
  double fp4_tflops = 0;   ///< dense, TFLOP/s (0: none)
  double hbm_gb = 0;       ///< usable HBM per GPU, GB
  double hbm_tb_per_s = 0; ///< HBM bandwidth, TB/s
  double nvlink_gb_per_s = 0; ///< NVLink per GPU per direction, GB/s
  double nic_gb_per_s = 0;    ///< scale-out NIC per GPU per direction, GB/s
  int domain_gpus = 8;        ///< GPUs of one NVLink domain
  double power_w = 0;         ///< board power, W

  /// Dense peak for GEMMs at a precision, TFLOP/s: FP4 falls back to FP8 and FP8 to BF16 where the GPU lacks it.
  double peak_tflops(hardware::Precision precision) const;
};

/// Figures of a catalogue kind in a domain of `domain_gpus` GPUs.
GpuFigures gpu_figures(const hardware::GpuKind& kind, int domain_gpus);
/// Figures of a catalogue kind by name (an empty name when the catalogue lacks it).
GpuFigures find_gpu_figures(std::string_view name, int domain_gpus);

} // namespace dcsim::serving
