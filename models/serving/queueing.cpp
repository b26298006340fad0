#include "models/serving/queueing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dcsim::serving {

double md1_mean_wait_s(double arrival_per_s, double service_s) {
  const double rho = arrival_per_s * service_s;
  if (rho >= 1) return std::numeric_limits<double>::infinity();
  return rho * service_s / (2.0 * (1.0 - rho));
}

double erlang_c_wait_probability(int servers, double arrival_per_s, double service_rate_per_s) {
  const double a = arrival_per_s / service_rate_per_s;
  if (a >= servers) return 1.0;
  double term = 1.0, sum = 0.0; // term = a^k / k!
  for (int k = 0; k < servers; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double last = term * servers / (servers - a);
  return last / (sum + last);
}

double mmc_mean_wait_s(int servers, double arrival_per_s, double service_rate_per_s) {
  if (arrival_per_s >= servers * service_rate_per_s) return std::numeric_limits<double>::infinity();
  return erlang_c_wait_probability(servers, arrival_per_s, service_rate_per_s) /
         (servers * service_rate_per_s - arrival_per_s);
}

IterationCost iteration_cost(const PerfModel& model, int isl, int osl) {
  IterationCost c;
  c.prefill_s_per_token = model.prefill_s_per_token(isl);
  const double ctx = isl + osl / 2.0;
  c.decode_step_s = [&model, ctx](int decodes) { return model.decode_step(decodes, ctx).total_s(); };
  c.max_batch = std::max(1, model.max_batch(isl, osl));
  c.chunk_tokens = model.efficiency().max_num_tokens;
  return c;
}

FluidState fluid_state(const OperatingCurve& curve, int instances, double arrival_req_per_s, double tpot_slo_s) {
  FluidState s;
  const int gpus = curve.config.gpus() * instances;
  const OperatingPoint* slo_point = nullptr;
  for (const auto& p : curve.points)
    if (p.tpot_s <= tpot_slo_s) slo_point = &p; // points grow in batch and TPOT
  if (!slo_point || instances <= 0) return s;
  auto rate = [&](const OperatingPoint& p) { return instances * p.batch / (p.tpot_s * curve.osl); };
  s.capacity_req_per_s = rate(*slo_point);
  s.served_req_per_s = std::min(arrival_req_per_s, s.capacity_req_per_s);
  s.meets_slo = arrival_req_per_s <= s.capacity_req_per_s;
  const OperatingPoint* at = slo_point; // overloaded: the pool runs at the SLO point and sheds the rest
  for (const OperatingPoint* p = curve.points.data(); p < slo_point; ++p)
    if (rate(*p) >= arrival_req_per_s) {
      at = p;
      break;
    }
  s.tpot_s = at->tpot_s;
  s.ttft_s = at->ttft_s;
  s.output_tokens_per_s_per_gpu = s.served_req_per_s * curve.osl / gpus;
  return s;
}

} // namespace dcsim::serving
