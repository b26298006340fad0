// Request-level play of a serving pool: continuous batching with chunked prefill, or prefill/decode
// disaggregation with a KV hand-off; SLOs, SLO attainment and goodput.
//
// Requests arrive as a Poisson process (stream "serving/arrivals"); output lengths are fixed, or
// 1 + Geometric with the given mean (stream "serving/lengths"), whose service is near-exponential.
// Aggregated: every instance runs iterations; an iteration carries the decodes of its running requests
// and up to chunk_tokens − decodes prefill tokens of admitted requests (FCFS), and lasts
//     t_it = decode_step_s(decodes) [if decodes > 0] + prefill_tokens · prefill_s_per_token
// (the operating curve's equation, Sarathi-Serve's stall-free batching). A request is admitted from one
// FCFS queue when an instance has fewer than max_batch requests. Its first token comes at the end of its
// prefill; each later iteration emits one token.
// Disaggregated: `prefill_instances` instances run prefill-only iterations (up to chunk_tokens prompt
// tokens, FCFS), the KV cache then moves in isl · kv_transfer_s_per_token (0: free), and `decode_instances`
// instances run decode-only iterations. TTFT ends with the prefill; the hand-off delays the second token.
// Per request: TTFT = first token − arrival; TPOT = (last − first token) / (OSL − 1). SLO attainment: share
// of requests meeting both the TTFT and the TPOT SLO (DistServe); goodput = those requests / duration.
// A failure of an instance (fail_instance_at_s, or each of `outages`) loses its requests' KV: they return
// to the queue's head and prefill again (retried), as a failed tray does to an NVL72 instance; the
// instance serves again at the outage's end. Requests arriving before measure_from_s are a warm-up
// (played, so that the pool is in steady state, but not counted in the results; retries count them).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace dcsim::serving {

struct IterationCost {
  double prefill_s_per_token = 0;
  std::function<double(int decodes)> decode_step_s;
  int max_batch = 1;     ///< requests per instance
  int chunk_tokens = 8192;
};

struct Outage {
  int instance = 0;
  double at_s = 0;
  double back_s = 1e300; ///< serves again then (never, by default)
};

struct PlaySpec {
  double arrival_req_per_s = 1;
  int requests = 1000;   ///< arrivals played
  int isl = 1000;
  int osl = 100;
  bool geometric_osl = false;
  bool disaggregated = false;
  int instances = 1;          ///< aggregated pool
  int prefill_instances = 1;  ///< disaggregated
  int decode_instances = 1;
  double kv_transfer_s_per_token = 0;
  double ttft_slo_s = 1e9;
  double tpot_slo_s = 1e9;
  double fail_instance_at_s = -1; ///< instance 0 (aggregated) fails then, for repair_s
  double repair_s = 0;
  std::vector<Outage> outages;
  double measure_from_s = 0;
  bool keep_samples = false;     ///< PlayResult::ttft_samples_s / tpot_samples_s
  std::uint64_t seed = 1;
};

struct PlayResult {
  double duration_s = 0;
  int completed = 0;               ///< measured requests (arrived at or after measure_from_s)
  int met = 0;                     ///< of them, those meeting both SLOs
  int retried = 0;                 ///< requests restarted after a failure
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p99_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0, tpot_p99_s = 0;
  double slo_attainment_frac = 0;
  double goodput_req_per_s = 0;
  double throughput_req_per_s = 0;
  double output_tokens_per_s = 0;
  std::vector<double> ttft_samples_s, tpot_samples_s; ///< per measured request (keep_samples)
};

/// Plays `spec` with `cost` for aggregated (or decode) instances and `prefill_cost` for prefill instances.
PlayResult play_requests(const PlaySpec& spec, const IterationCost& cost, const IterationCost& prefill_cost);

} // namespace dcsim::serving
