// Power spec (`/power`): GPU and rack power by state, a facility power budget with a capping policy
// (in the spirit of NVIDIA DSX MaxLPS), and grid events (DSX Flex demand response).
//
// Power is always accounted (the defaults below apply when `/power` is absent); a budget and grid events
// are optional.
//   GPU      busy at clock f: P_max·(s + (1 − s)·f^k); idle: P_max·i; down: 0   (hardware/gpu_power.hpp)
//   rack     P_rack = P_base + Σ GPUs; 0 while the cooling system has it off (isolated, shut down)
//   facility P_IT = Σ racks (IT power; cooling plant power is not modelled)
// A GPU is busy while the training job holding it is training (running, writing a checkpoint, stalled),
// idle otherwise (healthy but unallocated, or its job restarting, waiting or stopped).
// Rack design power (all usable GPUs busy at the nominal clock, in-rack spares idle, base on) sizes the
// default coolant flow and the CDU check, and is the facility's reference power when grid events come
// without a budget.
// Budget: when P_IT would exceed the available power (budget_kw, times 1 − cut_frac during a grid event),
// busy GPUs are capped to a lower clock (capping policy, power_capper.hpp), which slows the jobs' steps.
// Grid events with policy "pause" instead stop whole jobs for the event (latest jobs first) at a
// checkpoint, as many as needed for the rest to fit; capping covers what remains.
#pragma once

#include "models/hardware/gpu_power.hpp"
#include "models/hardware/spec.hpp"
#include "sim/json_reader.hpp"

#include <optional>
#include <vector>

namespace dcsim::power {

enum class CappingPolicy { UNIFORM, PRIORITY };
enum class GridPolicy { CAP, PAUSE };

struct GridEvent {
  double start_h = 0;
  double duration_h = 0;
  double cut_frac = 0; ///< share of the reference power withdrawn during the event
};

/// ESTIMATE: non-GPU rack power (CPUs, NVLink switch trays, NICs, DPUs, power conversion) as a share of the
/// rack's GPU power: Vera Rubin NVL72 racks are quoted at ~180–230 kW with 72 GPUs of 1.8–2.3 kW
/// (CONTEXT.md §1): 180 − 72 × 1.8 = 50 kW ≈ 0.35 × 130 kW; GB200 NVL72 ~120–140 kW with 72 × 1.2 kW GPUs.
inline constexpr double RACK_BASE_FRAC_OF_GPU_POWER = 0.35;

struct PowerSpec {
  double gpu_idle_frac = 0.15;
  double gpu_static_frac = 0.30;
  double dvfs_exponent = 2.0;
  double rack_base_kw = 0;         ///< resolved from the hardware when not given
  std::optional<double> budget_kw; ///< facility IT power budget
  CappingPolicy capping = CappingPolicy::UNIFORM;
  double min_clock_frac = 0.5;
  std::vector<GridEvent> grid_events;
  GridPolicy grid_policy = GridPolicy::CAP;

  hardware::GpuPowerCurve gpu_curve(const hardware::GpuSpec& gpu) const;
};

const sim::KeyTable& power_keys();
const sim::KeyTable& grid_event_keys();

PowerSpec decode_power(const sim::Node& power, const hardware::HardwareSpec& hardware);

/// A rack's design power: every usable GPU busy at the nominal clock, in-rack spares idle, base on, W.
double rack_design_power_w(const PowerSpec& power, const hardware::HardwareSpec& hardware);

} // namespace dcsim::power
