// Racky's telemetry of the facility: the cooling gauges of every loop (and rack) sampled at the scenario's
// racky_interval_s, and the recurring samplers of the facility's gauges. One of the parts Facility
// (models/facility.hpp) wires; it owns no state of the plant, only the sampling schedule, and reads the
// cooling plant (facility/cooling_plant.hpp), the power part (facility/facility_power.hpp) and the racks.
//
// Gauges (time series, docs/metrics.md), per rack r of loop l with P_r its power
// (FacilityPower::rack_power_w), Q_r its branch's flow, T_s the supply temperature, R_th the cold plate's
// thermal resistance:
//   return_temp_c  T_ret,r = T_s + ΔT_coolant(P_r, Q_r)          (cooling/coolant.hpp: ΔT = P/(ρ·c_p·Q))
//   gpu_temp_max_c T_gpu,r = T_ret,r + R_th·P_gpu,hottest        (NaN when no GPU of the rack is powered)
//   power_kw, flow_l_per_min, pressure_kpa, leak (0/1)
// per loop the CDU's readings (cooling/coolant_loop.hpp: read) plus throttled_gpus and isolated_racks, and
// for the cluster their sums and maxima. racky_gauges chooses cluster / loop / rack detail.
// Invariant checked at each sample: Σ_r P_r equals the power part's aggregate P_IT within 1e-9 relative
// (two independent paths to the same figure; a disagreement is a bug, thrown as std::logic_error).
#pragma once

#include "models/facility/cooling_plant.hpp"
#include "models/facility/facility_power.hpp"

#include <functional>

namespace dcsim::facility {

/// Runs `sample` at 0, every, 2·every, ... up to `end` (nothing when every ≤ 0).
void sample_every(sim::EventQueue& queue, sim::Tick every, sim::Tick end, std::function<void()> sample);

class RackyTelemetry {
public:
  RackyTelemetry(const CoolingPlant& plant, FacilityPower& power, const RackView& racks,
                 const hardware::Layout& layout, sim::EventQueue& queue, sim::EventLog& log);

  /// Reserves the samples to come (no reallocation of ~10^6 samples) and starts the loop sampler;
  /// `other_samples` is how many the other samplers will add.
  void start(sim::Tick end, std::size_t other_samples);
  /// One sample of every cooling gauge now.
  void sample_loops();

private:
  const CoolingPlant* plant_;
  FacilityPower* power_;
  const RackView* racks_;
  const hardware::Layout* layout_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
};

} // namespace dcsim::facility
