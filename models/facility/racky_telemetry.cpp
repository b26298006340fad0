#include "models/facility/racky_telemetry.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

namespace dcsim::facility {

namespace {
constexpr double W_PER_KW = 1000.0;
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

void raise(double& max, double v) {
  if (!std::isnan(v) && !(v <= max)) max = v;
}
} // namespace

void sample_every(sim::EventQueue& queue, sim::Tick every, sim::Tick end, std::function<void()> sample) {
  if (every <= 0) return;
  auto sampler = std::make_shared<std::function<void()>>();
  *sampler = [&queue, every, end, sampler, sample = std::move(sample)] {
    sample();
    if (queue.now() + every <= end) queue.after(every, *sampler);
  };
  queue.at(0, [sampler] { (*sampler)(); });
}

RackyTelemetry::RackyTelemetry(const CoolingPlant& plant, FacilityPower& power, const RackView& racks,
                               const hardware::Layout& layout, sim::EventQueue& queue, sim::EventLog& log)
    : plant_(&plant), power_(&power), racks_(&racks), layout_(&layout), queue_(&queue), log_(&log) {}

void RackyTelemetry::start(sim::Tick end, std::size_t other_samples) {
  const cooling::CoolingSpec& spec = plant_->spec();
  const sim::Tick every = sim::to_ticks(spec.racky_interval_s);
  if (every <= 0) return;
  const auto loops = static_cast<std::size_t>(plant_->loops().loops());
  const std::size_t per_sample =
      7 + (spec.racky_gauges == cooling::RackyGauges::CLUSTER ? 0 : 6 * loops) +
      (spec.racky_gauges == cooling::RackyGauges::RACK ? 6 * static_cast<std::size_t>(layout_->racks()) : 0);
  log_->reserve_samples(per_sample * static_cast<std::size_t>(end / every + 1) + other_samples);
  sample_every(*queue_, every, end, [this] { sample_loops(); });
}

void RackyTelemetry::sample_loops() {
  power_->settle_if_pending();
  const sim::Tick now = queue_->now();
  std::vector<double> hottest;
  std::vector<int> busy;
  const std::vector<double> power = power_->rack_power_w(&hottest, &busy);
  const cooling::CoolingSpec& spec = plant_->spec();
  const cooling::CoolantLoops& loops = plant_->loops();
  const double supply_c = plant_->supply_c();
  const cooling::Coolant& coolant = spec.thermal.coolant;
  const double r_th = spec.thermal.thermal_resistance_k_per_w;
  const bool per_loop = spec.racky_gauges != cooling::RackyGauges::CLUSTER;
  const bool per_rack = spec.racky_gauges == cooling::RackyGauges::RACK;
  double heat_removed_w = 0;
  double flow_l_per_min = 0;
  double return_max_c = NaN;
  double gpu_max_c = NaN;
  for (int l = 0; l < loops.loops(); ++l) {
    const cooling::LoopReading reading = loops.read(l, supply_c, power);
    heat_removed_w += reading.heat_removed_w;
    flow_l_per_min += reading.flow_l_per_min;
    raise(return_max_c, reading.return_c);
    double gpu_max = NaN;
    int throttled = 0;
    int isolated = 0;
    for (int r = loops.first_rack(l); r < loops.first_rack(l) + loops.loop_racks(l); ++r) {
      const auto i = static_cast<std::size_t>(r);
      const double flow = loops.flow_l_per_min(r);
      const double ret = supply_c + coolant.rise_k(power[i], flow);
      const double gpu_c = hottest[i] > 0 ? ret + hottest[i] * r_th : NaN;
      raise(gpu_max, gpu_c);
      if (busy[i] > 0 && plant_->throttled().count(r)) throttled += busy[i];
      if (!racks_->powered(r)) ++isolated;
      if (per_rack) {
        const std::string rack = layout_->rack_name(r);
        log_->sample({now, rack, "return_temp_c", ret});
        log_->sample({now, rack, "flow_l_per_min", flow});
        log_->sample({now, rack, "pressure_kpa", loops.pressure_drop_kpa(r)});
        log_->sample({now, rack, "leak", plant_->leaks(r) > 0 ? 1.0 : 0.0});
        log_->sample({now, rack, "power_kw", power[i] / W_PER_KW});
        log_->sample({now, rack, "gpu_temp_max_c", gpu_c});
      }
    }
    raise(gpu_max_c, gpu_max);
    if (!per_loop) continue;
    const std::string loop_name = loops.loop_name(l);
    log_->sample({now, loop_name, "return_temp_c", reading.return_c});
    log_->sample({now, loop_name, "flow_l_per_min", reading.flow_l_per_min});
    log_->sample({now, loop_name, "gpu_temp_max_c", gpu_max});
    log_->sample({now, loop_name, "power_kw", reading.power_w / W_PER_KW});
    log_->sample({now, loop_name, "throttled_gpus", static_cast<double>(throttled)});
    log_->sample({now, loop_name, "isolated_racks", static_cast<double>(isolated)});
  }
  // Two independent paths to the facility's power: per rack here, by aggregates in the power part. They
  // must agree (a bug otherwise, never a property of the input).
  double racks_w = 0;
  for (const double w : power)
    racks_w += w;
  if (std::fabs(racks_w - power_->power_w()) > 1e-9 * std::max(1.0, racks_w))
    throw std::logic_error(fmt::format("Facility: power per rack ({} W) and by aggregates ({} W) disagree",
                                       racks_w, power_->power_w()));
  log_->sample({now, "cluster", "supply_temp_c", supply_c});
  log_->sample({now, "cluster", "return_temp_max_c", return_max_c});
  log_->sample({now, "cluster", "gpu_temp_max_c", gpu_max_c});
  log_->sample({now, "cluster", "flow_l_per_min", flow_l_per_min});
  log_->sample({now, "cluster", "heat_removed_kw", heat_removed_w / W_PER_KW});
  log_->sample({now, "cluster", "throttled_gpus", power_->throttled_gpus()});
  log_->sample(
      {now, "cluster", "isolated_racks", static_cast<double>(layout_->racks() - racks_->powered_racks())});
}

} // namespace dcsim::facility
