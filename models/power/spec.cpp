#include "models/power/spec.hpp"

#include <fmt/format.h>

namespace dcsim::power {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

namespace {
constexpr double W_PER_KW = 1000.0;
sim::Bounds open_fraction() {
  return sim::Bounds{0.0, 1.0, true, true};
}
} // namespace

// clang-format off
const KeyTable& power_keys() {
  static const KeyTable table{
      "power", "/power", "GPU and rack power, a facility power budget with capping, grid events",
      {
          KeyDef{"gpu_idle_frac", ValueType::NUMBER, "", 0.15, "idle GPU power ÷ hardware.gpu.power_w (estimate)",
                 sim::fraction()},
          KeyDef{"gpu_static_frac", ValueType::NUMBER, "", 0.30,
                 "share of a busy GPU's power that does not scale with its clock (estimate)", sim::fraction()},
          KeyDef{"dvfs_exponent", ValueType::NUMBER, "", 2.0,
                 "busy GPU power = power_w x (static + (1 - static) x clock^exponent) (estimate)", sim::between(1, 3)},
          KeyDef{"rack_base_kw", ValueType::NUMBER, "kW", nullptr,
                 "non-GPU power of a rack (CPUs, switch trays, NICs, conversion)", sim::non_negative(), {},
                 "0.35 x the rack's GPU power at full load (estimate, CONTEXT §1)"},
          KeyDef{"budget_kw", ValueType::NUMBER, "kW", nullptr,
                 "facility IT power budget: busy GPUs are capped to stay within it", sim::positive(), {},
                 "none: no budget"},
          KeyDef{"capping", ValueType::STRING, "", "uniform",
                 "uniform: one clock cap for every busy GPU; priority: cap the last job first, then the one before ...",
                 {}, {"uniform", "priority"}},
          KeyDef{"min_clock_frac", ValueType::NUMBER, "", 0.5,
                 "lowest clock a power cap may impose (the budget may then be exceeded)",
                 sim::Bounds{0.0, 1.0, true, false}},
          KeyDef{"grid_events", ValueType::ARRAY, "", Json::array(),
                 "grid events (demand response): windows cutting the available power (see /power/grid_events/*)"},
          KeyDef{"grid_policy", ValueType::STRING, "", "cap",
                 "during a grid event: cap (capping policy within the reduced power) or pause (stop jobs at a "
                 "checkpoint, latest first, until the rest fits)",
                 {}, {"cap", "pause"}},
      }};
  return table;
}
// clang-format on

// clang-format off
const KeyTable& grid_event_keys() {
  static const KeyTable table{
      "power", "/power/grid_events/*", "one grid event: a window with less power available",
      {
          KeyDef{"start_h", ValueType::NUMBER, "h", nullptr, "start, after the previous event's end",
                 sim::non_negative()},
          KeyDef{"duration_h", ValueType::NUMBER, "h", nullptr, "length of the window", sim::positive()},
          KeyDef{"cut_frac", ValueType::NUMBER, "", nullptr,
                 "share of the budget (or of the facility's design power without one) withdrawn", open_fraction()},
      }};
  return table;
}
// clang-format on

hardware::GpuPowerCurve PowerSpec::gpu_curve(const hardware::GpuSpec& gpu) const {
  return hardware::GpuPowerCurve{gpu.power_w, gpu_idle_frac, gpu_static_frac, dvfs_exponent};
}

double rack_design_power_w(const PowerSpec& power, const hardware::HardwareSpec& hardware) {
  const hardware::GpuPowerCurve curve = power.gpu_curve(hardware.gpu);
  const int gpus = hardware.rack.gpus_per_rack();
  const int domains = gpus / hardware.rack.domain_gpus();
  const int busy = domains * hardware.rack.domain_usable_gpus();
  return power.rack_base_kw * W_PER_KW + busy * curve.busy_w(1.0) + (gpus - busy) * curve.idle_w();
}

PowerSpec decode_power(const sim::Node& n, const hardware::HardwareSpec& hardware) {
  PowerSpec s;
  s.gpu_idle_frac = n.number("gpu_idle_frac");
  s.gpu_static_frac = n.number("gpu_static_frac");
  s.dvfs_exponent = n.number("dvfs_exponent");
  s.rack_base_kw = n.optional_number("rack_base_kw")
                       .value_or(RACK_BASE_FRAC_OF_GPU_POWER * hardware.gpu.power_w *
                                 hardware.rack.gpus_per_rack() / W_PER_KW);
  s.budget_kw = n.optional_number("budget_kw");
  s.capping = n.string("capping") == "priority" ? CappingPolicy::PRIORITY : CappingPolicy::UNIFORM;
  s.min_clock_frac = n.number("min_clock_frac");
  s.grid_policy = n.string("grid_policy") == "pause" ? GridPolicy::PAUSE : GridPolicy::CAP;
  double previous_end_h = -1;
  for (const sim::Node& e : n.objects("grid_events", grid_event_keys())) {
    GridEvent g;
    g.start_h = e.number("start_h");
    g.duration_h = e.number("duration_h");
    g.cut_frac = e.number("cut_frac");
    if (e.has("start_h") && previous_end_h >= 0 && g.start_h < previous_end_h)
      e.problem("start_h", fmt::format("must not be before the previous event's end ({} h)", previous_end_h));
    previous_end_h = g.start_h + g.duration_h;
    s.grid_events.push_back(g);
  }
  if (s.gpu_idle_frac > s.gpu_static_frac)
    n.problem(
        n.has("gpu_idle_frac") ? "gpu_idle_frac" : "gpu_static_frac",
        fmt::format("gpu_idle_frac ({}) must not exceed gpu_static_frac ({}): a busy GPU draws at least "
                    "its static power",
                    s.gpu_idle_frac, s.gpu_static_frac));
  if (n.has("grid_policy") && s.grid_events.empty())
    n.problem("grid_policy", "has no effect without grid_events");
  if (!s.budget_kw && n.has("capping") && s.grid_events.empty())
    n.problem("capping", "has no effect without budget_kw or grid_events");
  return s;
}

} // namespace dcsim::power
