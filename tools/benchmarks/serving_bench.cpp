#include "tools/benchmarks/serving_bench.hpp"

#include "models/cost/spec.hpp"
#include "models/power/spec.hpp"
#include "models/serving/calibration.hpp"
#include "models/serving/study.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace dcsim::tools {

namespace {

using Clock = std::chrono::steady_clock;
using namespace serving;

/// Mean wall time of building one operating curve, over `reps` builds of each configuration.
double curve_time_s(int reps) {
  struct C {
    const char* model;
    const char* gpu;
    int domain;
    InstanceConfig cfg;
  };
  const std::vector<C> cases = {
      {"deepseek-r1", "gb300", 72, {64, 64, 1, true, hardware::Precision::FP4, 1.0}},
      {"llama3-70b", "h100-sxm", 8, {8, 1, 1, false, hardware::Precision::FP8, 1.0}},
      {"qwen3-235b-a22b", "rubin", 72, {8, 8, 1, false, hardware::Precision::FP4, 1.0}},
  };
  double sink = 0;
  const auto start = Clock::now();
  for (int r = 0; r < reps; ++r)
    for (const auto& c : cases) {
      const PerfModel m(*find_model_shape(c.model), c.cfg, find_gpu_figures(c.gpu, c.domain), efficiency_for(c.gpu));
      sink += m.curve(8192, 1024).points.back().tpot_s;
    }
  const double s = std::chrono::duration<double>(Clock::now() - start).count() / (reps * double(cases.size()));
  return sink < 0 ? -s : s;
}

void print_calibration() {
  std::cout << "  calibration (output tokens/s per GPU, max throughput; TensorRT-LLM perf overview):\n";
  std::cout << fmt::format("  {:<16} {:<9} {:<9} {:>9} {:>9} {:>9} {:>8} {:>8}\n", "model", "gpu", "config", "isl/osl",
                           "published", "model", "error", "loo_err");
  for (const auto& r : calibration_table())
    std::cout << fmt::format("  {:<16} {:<9} {:<9} {:>9} {:>9.0f} {:>9.0f} {:>+7.1f}% {:>+7.1f}%\n", r.point.model,
                             r.point.gpu, r.point.config.label(), fmt::format("{}/{}", r.point.isl, r.point.osl),
                             r.point.published_tokens_per_s_per_gpu, r.modelled, 100 * r.error_frac,
                             100 * r.loo_error_frac);
}

struct System {
  const char* gpu;
  int domain;
  double gpu_usd;
};

ServingPrices prices_of(const System& s) {
  hardware::HardwareSpec hw;
  hw.gpu.model = "gb200"; // the kind only selects gpu_usd, given below
  const auto cost = cost::default_cost(hw, ops::OperationsSpec{});
  const GpuFigures g = find_gpu_figures(s.gpu, s.domain);
  ServingPrices p;
  p.gpu_usd = s.gpu_usd;
  p.depreciation_years = cost->depreciation_years;
  p.facility_usd_per_mw_year = cost->facility_usd_per_mw_year;
  p.electricity_usd_per_mwh = cost->electricity_usd_per_mwh;
  p.pue = cost->pue;
  p.it_power_w_per_gpu = g.power_w * (1.0 + power::RACK_BASE_FRAC_OF_GPU_POWER);
  return p;
}

std::vector<System> study_systems() {
  return {{"h100-sxm", 8, *cost::default_gpu_usd("h100-sxm")},
                                       {"h200", 8, *cost::default_gpu_usd("h200")},
                                       {"gb200", 72, *cost::default_gpu_usd("gb200")},
                                       {"gb300", 72, *cost::default_gpu_usd("gb300")},
                                       {"rubin", 72, *cost::default_gpu_usd("rubin")}};
}

const std::vector<double>& study_levels() {
  static const std::vector<double> levels = {10, 25, 50, 100, 200, 400};
  return levels;
}

std::vector<std::vector<StudyPoint>> study(const char* model, int isl, int osl) {
  std::vector<std::vector<StudyPoint>> all;
  for (const auto& s : study_systems()) {
    const GpuFigures g = find_gpu_figures(s.gpu, s.domain);
    all.push_back(best_points(*find_model_shape(model), g, efficiency_for(s.gpu), s.domain == 72 ? 64 : 8, isl, osl,
                              study_levels(), prices_of(s)));
  }
  return all;
}

std::string thousands(double x) { // 11284 -> "11,284"
  std::string digits = fmt::format("{:.0f}", x), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// One study as a markdown table: output tokens/s per GPU and $ per million output tokens per system at
/// each interactivity level, and Rubin's ratios against GB200 and GB300.
std::string study_markdown(const char* model, int isl, int osl) {
  const auto systems = study_systems();
  const auto all = study(model, isl, osl);
  std::string md = fmt::format("### {}, ISL/OSL {}/{}\n\nOutput tokens/s per GPU (configuration, $ per million output "
                               "tokens); — where no configuration reaches the level.\n\n| tok/s/user ≥ |",
                               model, isl, osl);
  for (const auto& s : systems)
    md += fmt::format(" {} |", s.gpu);
  md += " Rubin/GB200 tput | Rubin/GB200 cost | Rubin/GB300 cost |\n|---|";
  for (std::size_t i = 0; i < systems.size() + 3; ++i)
    md += "---|";
  md += "\n";
  for (std::size_t i = 0; i < study_levels().size(); ++i) {
    md += fmt::format("| {:.0f} |", study_levels()[i]);
    for (const auto& points : all) {
      const StudyPoint& p = points[i];
      md += p.feasible ? fmt::format(" {} ({}, {:.3f} $) |", thousands(p.output_tokens_per_s_per_gpu), p.config,
                                     p.cost_usd_per_mtok)
                       : std::string(" — |");
    }
    const auto &b2 = all[2][i], &b3 = all[3][i], &r = all[4][i];
    if (r.feasible && b2.feasible && b3.feasible)
      md += fmt::format(" {:.2f}× | 1/{:.1f} | 1/{:.1f} |\n", r.output_tokens_per_s_per_gpu / b2.output_tokens_per_s_per_gpu,
                        b2.cost_usd_per_mtok / r.cost_usd_per_mtok, b3.cost_usd_per_mtok / r.cost_usd_per_mtok);
    else
      md += " — | — | — |\n";
  }
  return md + "\n";
}

void print_study(const char* model, int isl, int osl) {
  const auto systems = study_systems();
  const std::vector<double>& levels = study_levels();
  std::cout << fmt::format("  study {} {}/{} (aggregated, best configuration per level; FP4 where the GPU has it):\n",
                           model, isl, osl);
  const auto all = study(model, isl, osl);
  for (std::size_t k = 0; k < systems.size(); ++k) {
    std::cout << fmt::format("    {:<9} {:.2f} $/GPU-h\n", systems[k].gpu, prices_of(systems[k]).usd_per_gpu_h());
    for (const auto& pt : all[k])
      std::cout << fmt::format("      >= {:>4.0f} tok/s/user: {:<12} B {:>5} {:>8.0f} tok/s/GPU {:>7.3f} $/Mtok {:>6.2f} J/tok "
                               "{:>6.2f} Mtok/s/MW ttft {:.2f} s\n",
                               pt.min_tokens_per_s_per_user, pt.feasible ? pt.config : "-", pt.batch,
                               pt.output_tokens_per_s_per_gpu, pt.cost_usd_per_mtok, pt.energy_j_per_token,
                               pt.tokens_per_s_per_mw * 1e-6, pt.ttft_s);
  }
  std::cout << "    ratio rubin/gb200 and rubin/gb300 (tokens/s per GPU; cost per Mtok):\n";
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const auto &b2 = all[2][i], &b3 = all[3][i], &r = all[4][i]; // gb200, gb300, rubin
    if (!r.feasible || !b2.feasible || !b3.feasible) {
      std::cout << fmt::format("      >= {:>4.0f}: a system cannot reach it\n", levels[i]);
      continue;
    }
    std::cout << fmt::format("      >= {:>4.0f}: tput x{:.2f} / x{:.2f}   cost x{:.3f} (1/{:.1f}) / x{:.3f} (1/{:.1f})\n",
                             levels[i], r.output_tokens_per_s_per_gpu / b2.output_tokens_per_s_per_gpu,
                             r.output_tokens_per_s_per_gpu / b3.output_tokens_per_s_per_gpu,
                             r.cost_usd_per_mtok / b2.cost_usd_per_mtok, b2.cost_usd_per_mtok / r.cost_usd_per_mtok,
                             r.cost_usd_per_mtok / b3.cost_usd_per_mtok, b3.cost_usd_per_mtok / r.cost_usd_per_mtok);
  }
}

} // namespace

void print_study_markdown() {
  std::cout << "# The generation study, at the current cost defaults\n\n"
               "<!-- Generated by `build/tools/dcsim-bench serving-markdown` (tools/update-docs); do not edit: a test "
               "checks that it is current. -->\n\n"
               "Aggregated serving, each system at its best configuration per interactivity level (attention-DP + "
               "EP or TP + EP up to 64 GPUs of an NVL72, 8 GPUs per HGX), FP4 weights where the GPU has FP4 (else "
               "FP8), FP8 KV cache; output tokens only (docs/serving.md, \"The generation study\"). Cost per "
               "GPU-hour from the cost model's defaults (models/cost/spec.hpp: system price per GPU over its "
               "depreciation, facility $/MW-year and electricity at its PUE) and provisioned power per GPU (board "
               "power × 1.35):";
  const auto systems = study_systems();
  for (std::size_t k = 0; k < systems.size(); ++k)
    std::cout << fmt::format("{} {} {:.2f} $/GPU-h", k == 0 ? "" : ",", systems[k].gpu,
                             prices_of(systems[k]).usd_per_gpu_h());
  std::cout << ".\n\n";
  for (const char* model : {"deepseek-r1", "llama3-70b"})
    for (auto [isl, osl] : {std::pair{1024, 1024}, std::pair{8192, 1024}})
      std::cout << study_markdown(model, isl, osl);
}

int run_serving_case() {
  std::cout << "case serving: operating curves (DeepSeek-R1 DEP64 on GB300, Llama-3 70B TP8 on H100, Qwen3 TEP8 on "
               "Rubin; 8192/1024)\n";
  const double s = curve_time_s(200);
  const bool ok = s <= 0.010;
  std::cout << fmt::format("  one operating curve: {:.1f} us; target <= 10 ms: {}\n", s * 1e6, ok ? "met" : "MISSED");
  print_calibration();
  for (const char* model : {"deepseek-r1", "llama3-70b"})
    for (auto [isl, osl] : {std::pair{1024, 1024}, std::pair{8192, 1024}})
      print_study(model, isl, osl);
  return ok ? 0 : 1;
}

} // namespace dcsim::tools
