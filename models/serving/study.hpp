// The serving study: each GPU's best instance configuration at a given interactivity, its cost per
// million tokens, energy per token and tokens/s per MW.
//
// At interactivity u (tokens/s per user, = 1/TPOT) the best point is the highest output tokens/s per GPU
// over every candidate configuration and every batch (a geometric grid, ratio 1.19, up to B_max) whose
// tokens/s per user is at least u. Candidates: dense models TP 1, 2, 4, 8; MoE models attention-DP + EP
// ("DEP") and TP + EP ("TEP") of 1 … the domain's usable GPUs (powers of two dividing the experts), all
// at FP4 where the GPU has it, else FP8, with an FP8 KV cache. Aggregated serving only.
// Cost per GPU-hour from the cost model's prices (models/cost/spec.hpp) and the power model's provisioned
// rack power per GPU (GPU board power × (1 + RACK_BASE_FRAC_OF_GPU_POWER), models/power/spec.hpp):
//   usd_per_gpu_h = gpu_usd / (depreciation_years · 8760) + (facility_usd_per_mw_year / 8760
//                   + electricity_usd_per_mwh · pue) · P_gpu_MW
//   cost_usd_per_mtok = 1e6 · usd_per_gpu_h / (3600 · output tokens/s per GPU)   (output tokens; prefill's
//                   cost is carried by them, as InferenceMAX does)
//   energy_j_per_token = P_gpu_W · pue / output tokens/s per GPU;  tokens_per_s_per_mw = tokens/s per GPU / P_gpu_MW
// The serving GPUs are counted at full design power (decode runs below it: an upper bound on energy).
#pragma once

#include "models/serving/perf_model.hpp"

#include <string>
#include <vector>

namespace dcsim::serving {

struct ServingPrices {
  double gpu_usd = 0;
  double depreciation_years = 6;
  double facility_usd_per_mw_year = 0;
  double electricity_usd_per_mwh = 0;
  double pue = 1;
  double it_power_w_per_gpu = 0; ///< provisioned rack power per GPU
  double usd_per_gpu_h() const;
};

struct StudyPoint {
  double min_tokens_per_s_per_user = 0;
  bool feasible = false;
  std::string config;
  int batch = 0;
  double tokens_per_s_per_user = 0;
  double output_tokens_per_s_per_gpu = 0;
  double ttft_s = 0;
  double cost_usd_per_mtok = 0;
  double energy_j_per_token = 0;
  double tokens_per_s_per_mw = 0;
};

std::vector<InstanceConfig> candidate_configs(const ModelShape& model, const GpuFigures& gpu, int usable_domain_gpus);

/// The best point at each interactivity level.
std::vector<StudyPoint> best_points(const ModelShape& model, const GpuFigures& gpu, const Efficiency& eff,
                                    int usable_domain_gpus, int isl, int osl, const std::vector<double>& interactivity,
                                    const ServingPrices& prices);

} // namespace dcsim::serving
