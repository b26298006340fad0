// Serving spec (`/jobs/*/serving`): an inference service described by its model and instance instead of
// a measured tokens_per_s_per_gpu.
//
// The service's capacity per GPU is then the operating curve's output tokens/s per GPU at the largest
// batch (on a grid of batches 5% apart) whose TPOT (prefill interference included) meets tpot_slo_s (models/serving/perf_model.hpp),
// for the scenario's GPU (hardware.gpu, hardware.rack: its figures, NVLink and domain) and the GPU's
// generation's efficiency set (models/serving/efficiency.hpp). A failed GPU takes its whole instance out
// of service until repaired (the service serves whole instances per NVLink domain). Checks: the model is
// a preset; the instance is consistent (ep divides tp and the experts, attention_dp with ep = tp); it
// fits one NVLink domain; its weights leave room for KV; some batch meets the SLO.
// With `disaggregation` the capacity is that of the prefill and decode pools (models/serving/disaggregation.hpp).
// Requests over the run (TTFT/TPOT percentiles, SLO attainment, goodput): the fluid mode with windows of
// request-level play after failures and at demand peaks (models/serving/service_timeline.hpp).
#pragma once

#include "models/hardware/spec.hpp"
#include "models/serving/disaggregation.hpp"
#include "models/serving/perf_model.hpp"
#include "sim/json_reader.hpp"

#include <optional>
#include <string>

namespace dcsim::serving {

struct ServingSpec {
  std::string model;
  int isl = 1024;
  int osl = 1024;
  InstanceConfig instance;
  double tpot_slo_s = 0.05;
  double ttft_slo_s = 10;              ///< SLO attainment and goodput (not the capacity)
  double restart_s = 300;              ///< a struck instance's time to serve again once whole (weights, warm-up)
  double window_s = 600;               ///< request-level windows (models/serving/service_timeline.hpp)
  double peak_window_load_frac = 0.8;  ///< load that opens a demand-peak window
  std::optional<DisaggregationSpec> disaggregation; ///< absent: aggregated instances
};

const sim::KeyTable& serving_keys();
ServingSpec decode_serving(const sim::Node& node);

/// The GPU figures of a scenario's hardware.
GpuFigures gpu_figures(const hardware::HardwareSpec& hardware);

struct ServingCapacity {
  double output_tokens_per_s_per_gpu = 0; ///< at the SLO point
  OperatingPoint point;
  std::string problem;                    ///< non-empty: why the spec cannot serve on this hardware
};

/// The service's capacity per GPU on `hardware`; a disaggregated service's for `instances` instances
/// (models/serving/disaggregation.hpp; fewer than 2 instances is a problem).
ServingCapacity serving_capacity(const ServingSpec& spec, const hardware::HardwareSpec& hardware, int instances = 0);

} // namespace dcsim::serving
