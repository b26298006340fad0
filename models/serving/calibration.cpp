#include "models/serving/calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace dcsim::serving {

namespace {
using hardware::Precision;

InstanceConfig dep(int n, Precision w) { return {n, n, 1, true, w, 1.0}; }
InstanceConfig tp1(Precision w) { return {1, 1, 1, false, w, 1.0}; }

CalibrationPoint pt(const char* model, const char* gpu, int domain, InstanceConfig cfg, int isl, int osl, double v) {
  return {model, gpu, domain, cfg, isl, osl, v};
}
} // namespace

std::vector<CalibrationPoint> calibration_set() {
  const auto q = "qwen3-235b-a22b";
  const auto o = "gpt-oss-120b";
  const Precision F4 = Precision::FP4, F8 = Precision::FP8;
  return {
      pt(q, "b200", 8, dep(4, F4), 1000, 1000, 5764),   pt(q, "gb200", 72, dep(4, F4), 1000, 1000, 6172),
      pt(q, "h200", 8, dep(4, F8), 1000, 1000, 3288), pt(q, "h100-sxm", 8, dep(8, F8), 1000, 1000, 1932),
      pt(q, "b200", 8, dep(4, F4), 1024, 8192, 3389),   pt(q, "gb200", 72, dep(4, F4), 1024, 8192, 3423),
      pt(q, "h200", 8, dep(4, F8), 1024, 8192, 1417), pt(q, "h100-sxm", 8, dep(8, F8), 1024, 8192, 873),
      pt(q, "b200", 8, dep(4, F4), 8192, 1024, 1410),   pt(q, "gb200", 72, dep(4, F4), 8192, 1024, 1464),
      pt(q, "h200", 8, dep(4, F8), 8192, 1024, 627),
      pt(o, "b200", 8, dep(2, F4), 1000, 1000, 25943),  pt(o, "gb200", 72, tp1(F4), 1000, 1000, 27198),
      pt(o, "h200", 8, tp1(F8), 1000, 1000, 6868),  pt(o, "h100-sxm", 8, dep(4, F8), 1000, 1000, 4685),
      pt(o, "b200", 8, dep(2, F4), 8192, 1024, 6111),   pt(o, "gb200", 72, tp1(F4), 8192, 1024, 6835),
      pt(o, "h200", 8, tp1(F8), 8192, 1024, 1828),  pt(o, "h100-sxm", 8, dep(4, F8), 8192, 1024, 1169),
  };
}

double modelled_max_throughput(const CalibrationPoint& p, const Efficiency& eff) {
  const PerfModel m(*find_model_shape(p.model), p.config, find_gpu_figures(p.gpu, p.domain_gpus), eff);
  const int b = m.max_batch(p.isl, p.osl);
  if (b <= 0) return 0;
  return m.point(b, p.isl, p.osl).output_tokens_per_s_per_gpu;
}

namespace {
constexpr int DIM = 4;
using V = std::array<double, DIM>;
constexpr V LOWER = {0.1, 0.2, 0.0, 0.0};
constexpr V UPPER = {1.0, 1.0, 200.0, 50.0};

Efficiency with(Efficiency e, const V& x) {
  e.gemm_frac = x[0];
  e.kv_read_frac = x[1];
  e.layer_overhead_us = x[2];
  e.step_overhead_ms = x[3];
  return e;
}

double loss(const std::vector<CalibrationPoint>& points, const Efficiency& start, const V& x) {
  for (int i = 0; i < DIM; ++i)
    if (x[i] < LOWER[i] || x[i] > UPPER[i]) return 1e9;
  const Efficiency e = with(start, x);
  double sum = 0;
  for (const auto& p : points) {
    const double v = modelled_max_throughput(p, e);
    if (v <= 0) return 1e9;
    const double r = std::log(v / p.published_tokens_per_s_per_gpu);
    sum += r * r;
  }
  return sum / points.size();
}
} // namespace

Efficiency fit_efficiency(const std::vector<CalibrationPoint>& points, const Efficiency& start) {
  // Nelder-Mead (reflection 1, expansion 2, contraction 0.5, shrink 0.5) from a fixed simplex.
  constexpr int N = DIM + 1;
  std::array<V, N> s;
  s[0] = V{0.5, 0.7, 20, 2};
  const V step = {0.2, 0.2, 40, 6};
  for (int i = 1; i < N; ++i) {
    s[i] = s[0];
    s[i][i - 1] += step[i - 1];
  }
  std::array<double, N> f{};
  for (int i = 0; i < N; ++i)
    f[i] = loss(points, start, s[i]);
  auto lerp = [](const V& a, const V& b, double t) {
    V r;
    for (int k = 0; k < DIM; ++k)
      r[k] = a[k] + t * (b[k] - a[k]);
    return r;
  };
  for (int iter = 0; iter < 600; ++iter) {
    std::array<int, N> order;
    for (int i = 0; i < N; ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return f[a] < f[b]; });
    const int best = order[0], worst = order[N - 1], second = order[N - 2];
    if (f[worst] - f[best] < 1e-12) break;
    V centroid{};
    for (int i = 0; i < N - 1; ++i)
      for (int k = 0; k < DIM; ++k)
        centroid[k] += s[order[i]][k] / (N - 1);
    const V reflected = lerp(centroid, s[worst], -1.0);
    const double fr = loss(points, start, reflected);
    if (fr < f[best]) {
      const V expanded = lerp(centroid, s[worst], -2.0);
      const double fe = loss(points, start, expanded);
      s[worst] = fe < fr ? expanded : reflected;
      f[worst] = std::min(fe, fr);
    } else if (fr < f[second]) {
      s[worst] = reflected;
      f[worst] = fr;
    } else {
      const V contracted = lerp(centroid, s[worst], 0.5);
      const double fc = loss(points, start, contracted);
      if (fc < f[worst]) {
        s[worst] = contracted;
        f[worst] = fc;
      } else {
        for (int i = 1; i < N; ++i) {
          s[order[i]] = lerp(s[best], s[order[i]], 0.5);
          f[order[i]] = loss(points, start, s[order[i]]);
        }
      }
    }
  }
  const int best = static_cast<int>(std::min_element(f.begin(), f.end()) - f.begin());
  return with(start, s[best]);
}

std::vector<CalibrationRow> calibration_table() {
  const auto all = calibration_set();
  std::vector<CalibrationRow> rows;
  for (std::size_t i = 0; i < all.size(); ++i) {
    CalibrationRow r;
    r.point = all[i];
    const std::string gen = generation_of(r.point.gpu);
    r.modelled = modelled_max_throughput(r.point, efficiency_for(r.point.gpu));
    r.error_frac = r.modelled / r.point.published_tokens_per_s_per_gpu - 1.0;
    std::vector<CalibrationPoint> others;
    for (std::size_t j = 0; j < all.size(); ++j)
      if (j != i && generation_of(all[j].gpu) == gen) others.push_back(all[j]);
    const Efficiency loo = fit_efficiency(others, fixed_efficiency(gen));
    r.loo_modelled = modelled_max_throughput(r.point, loo);
    r.loo_error_frac = r.loo_modelled / r.point.published_tokens_per_s_per_gpu - 1.0;
    rows.push_back(r);
  }
  return rows;
}

} // namespace dcsim::serving
