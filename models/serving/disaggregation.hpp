// Prefill/decode disaggregation of a served model (`/jobs/*/serving/disaggregation`, issue 28 item 2):
// the service's n instances split into n_p prefill-only and n_d decode-only instances, the KV cache of
// each request handed from its prefill instance to a decode instance.
//
// Split (r = prefill_instances_per_decode_instance > 0, n ≥ 2 instances):
//     n_p = min(n − 1, max(1, round(n·r/(1+r)))),   n_d = n − n_p   (round half away from zero)
// Capacity, requests/s (the pool that binds sets it; DistServe, Zhong et al. OSDI'24, §3):
//     C = min(n_p·C_p, n_d·C_d)
//     C_p = 1 / (ISL · c_pf)          a prefill instance at full chunks, compute-bound (c_pf: PerfModel's
//                                     instance seconds per prefill token)
//     C_d = B_d / (t_dec(B_d) · OSL)  a decode instance at the largest batch B_d (batches 5% apart, up to
//                                     the KV-bound B_max) whose TPOT t_dec(B_d) + t_h/(OSL − 1) meets
//                                     tpot_slo_s
// The service's output tokens/s is C·OSL, so its rate per GPU is C·OSL/(n·g), g GPUs per instance.
// KV hand-off of one request, seconds:
//     t_h = S_kv(ISL) / (N·b)   S_kv the request's KV bytes over its sending GPUs (PerfModel's KV bytes per
//                               request per GPU × N), N the GPUs holding it (pp with attention_dp, else
//                               tp·pp), b the per-GPU link rate: NVLink (one direction) for "nvlink", the
//                               NIC line rate for "fabric" (not yet shared with the fabric's other
//                               traffic), and t_h = 0 for "free".
// The prefill instance emits the first token and the hand-off delays the second (DistServe, Splitwise; the
// request play's convention, models/serving/request_play.hpp):
//     TTFT = t_pf(ISL)              the prompt's prefill on an idle prefill instance (PerfModel::prefill_s)
//     TPOT = t_dec(B) + t_h/(OSL − 1)   B the smallest batch on the grid whose rate n_d·B/(t_dec(B)·OSL)
//                                   covers the served rate min(λ, C), else B_d; no prefill interference
// Not represented: contention of hand-offs with each other or with the fabric's traffic (a fixed
// per-GPU rate b), queueing for the prefill pool in the fluid mode, prefix caching, speculative decoding.
#pragma once

#include "models/serving/perf_model.hpp"
#include "sim/json_reader.hpp"

#include <string>

namespace dcsim::serving {

enum class KvHandoff { NVLINK, FABRIC, FREE };

struct DisaggregationSpec {
  double prefill_per_decode = 1; ///< r, prefill instances per decode instance
  KvHandoff handoff = KvHandoff::NVLINK;
};

const sim::KeyTable& disaggregation_keys();
DisaggregationSpec decode_disaggregation(const sim::Node& node);

struct PoolSplit {
  int prefill = 0, decode = 0; ///< n_p, n_d (both 0 when n < 2)
};
/// The split of `instances` (n) instances at ratio r.
PoolSplit split_pool(int instances, double prefill_per_decode);

struct DisaggregatedFigures {
  double prefill_req_per_s = 0; ///< C_p, one prefill instance
  double decode_req_per_s = 0;  ///< C_d, one decode instance at B_d
  int decode_batch = 0;         ///< B_d (0: no batch meets the SLO)
  double decode_step_s = 0;     ///< t_dec(B_d)
  double prefill_s = 0;         ///< a prompt's prefill on an idle prefill instance
  double handoff_s = 0;         ///< t_h
  double handoff_tpot_s = 0;    ///< t_h/(OSL − 1), the hand-off's share of each later token
  std::string problem;          ///< non-empty: why the service cannot serve disaggregated
};

/// Seconds to hand one request's KV of `isl` tokens from its prefill instance over a link of
/// `link_gb_per_s` per sending GPU (t_h = S_kv/(N·b)).
double kv_handoff_s(const PerfModel& model, int isl, double link_gb_per_s);

/// C_p, C_d, B_d and the hand-off of `model`'s instances for isl/osl requests under `tpot_slo_s`.
DisaggregatedFigures disaggregated_figures(const PerfModel& model, int isl, int osl, double tpot_slo_s,
                                           const DisaggregationSpec& spec);

/// The capacity (requests/s) of `instances` instances split at the spec's ratio: min(n_p·C_p, n_d·C_d).
double disaggregated_capacity_req_per_s(const DisaggregatedFigures& f, const DisaggregationSpec& spec,
                                        int instances);

struct DisaggregatedLoad {
  double capacity_req_per_s = 0, served_req_per_s = 0;
  double ttft_s = 0, tpot_s = 0;
};
/// The fluid state of `instances` instances under λ requests/s (served = min(λ, C); TTFT and TPOT as above).
DisaggregatedLoad disaggregated_load(const PerfModel& model, const DisaggregatedFigures& f,
                                     const DisaggregationSpec& spec, int instances, int isl, int osl,
                                     double arrival_req_per_s);

} // namespace dcsim::serving
