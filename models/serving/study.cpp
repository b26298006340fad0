#include "models/serving/study.hpp"

#include <algorithm>

namespace dcsim::serving {

double ServingPrices::usd_per_gpu_h() const {
  const double mw = it_power_w_per_gpu * 1e-6;
  return gpu_usd / (depreciation_years * 8760.0) + (facility_usd_per_mw_year / 8760.0 + electricity_usd_per_mwh * pue) * mw;
}

std::vector<InstanceConfig> candidate_configs(const ModelShape& model, const GpuFigures& gpu, int usable_domain_gpus) {
  const hardware::Precision w = gpu.fp4_tflops > 0 ? hardware::Precision::FP4 : hardware::Precision::FP8;
  std::vector<InstanceConfig> out;
  for (int n = 1; n <= usable_domain_gpus; n *= 2) {
    if (!model.moe()) {
      if (n <= 8 && model.heads % n == 0) out.push_back({n, 1, 1, false, w, 1.0});
      continue;
    }
    if (model.experts % n != 0) continue;
    out.push_back({n, n, 1, true, w, 1.0});
    if (n > 1 && n <= 16) out.push_back({n, n, 1, false, w, 1.0});
  }
  std::erase_if(out, [&](const InstanceConfig& c) { return !check_instance(model, c, gpu).empty(); });
  return out;
}

std::vector<StudyPoint> best_points(const ModelShape& model, const GpuFigures& gpu, const Efficiency& eff,
                                    int usable_domain_gpus, int isl, int osl, const std::vector<double>& interactivity,
                                    const ServingPrices& prices) {
  std::vector<StudyPoint> best(interactivity.size());
  for (std::size_t i = 0; i < interactivity.size(); ++i)
    best[i].min_tokens_per_s_per_user = interactivity[i];
  for (const auto& cfg : candidate_configs(model, gpu, usable_domain_gpus)) {
    const PerfModel m(model, cfg, gpu, eff);
    const int bmax = m.max_batch(isl, osl);
    for (double b = 1; b <= bmax; b = std::max(b + 1, b * 1.19)) {
      const int batch = std::min(bmax, static_cast<int>(b));
      const OperatingPoint p = m.point(batch, isl, osl);
      for (auto& s : best) {
        if (p.tokens_per_s_per_user < s.min_tokens_per_s_per_user || p.output_tokens_per_s_per_gpu <= s.output_tokens_per_s_per_gpu)
          continue;
        s.feasible = true;
        s.config = cfg.label();
        s.batch = batch;
        s.tokens_per_s_per_user = p.tokens_per_s_per_user;
        s.output_tokens_per_s_per_gpu = p.output_tokens_per_s_per_gpu;
        s.ttft_s = p.ttft_s;
      }
    }
  }
  for (auto& s : best) {
    if (!s.feasible) continue;
    s.cost_usd_per_mtok = 1e6 * prices.usd_per_gpu_h() / (3600.0 * s.output_tokens_per_s_per_gpu);
    s.energy_j_per_token = prices.it_power_w_per_gpu * prices.pue / s.output_tokens_per_s_per_gpu;
    s.tokens_per_s_per_mw = s.output_tokens_per_s_per_gpu / (prices.it_power_w_per_gpu * 1e-6);
  }
  return best;
}

} // namespace dcsim::serving
