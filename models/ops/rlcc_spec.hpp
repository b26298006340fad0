// Rack lifecycle controller spec (`/rlcc`): durations of the stages of rack workflows, and planned
// maintenance waves.
//
// A workflow takes racks (or a whole loop) through timed stages (rlcc.hpp):
//   drain ─▶ isolate ─▶ service ─▶ refill ─▶ burn-in ─▶ return to service
// drain: the workload leaves at a checkpoint (planned work) or has already been interrupted (a leak);
// isolate and refill: only for work on the coolant side (valves close and the branch drains; refill,
// purge and leak test); service: the work itself; burn-in: health checks before the racks take work.
// A wave rolls planned work (e.g. a firmware update) over the racks in index order, `racks_per_step`
// racks at a time, one step every `every_h` from `start_h`: each step is a workflow. A `coolant` wave
// under /cooling/isolation "loop" takes whole loops: ceil(racks_per_step / racks_per_loop) per step.
#pragma once

#include "sim/json_reader.hpp"

#include <string>
#include <vector>

namespace dcsim::ops {

struct WaveSpec {
  std::string name;
  double start_h = 0;
  double every_h = 0;
  int racks_per_step = 1;
  int racks = 0; ///< racks covered; 0 = every rack
  double service_h = 0;
  bool coolant = false;
};

struct RlccSpec {
  double isolate_s = 600;
  double refill_s = 1800;
  double burn_in_s = 1800;
  std::vector<WaveSpec> waves;
};

const sim::KeyTable& rlcc_keys();
const sim::KeyTable& wave_keys();

RlccSpec decode_rlcc(const sim::Node& rlcc);

} // namespace dcsim::ops
