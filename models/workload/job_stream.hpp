// Job streams: tenants' jobs arriving and leaving over weeks, expanded deterministically into jobs.
//
// The scenario's optional /job_stream block describes jobs by a template (any /jobs/* keys but name,
// gpus, arrival_h and work_h) and where their arrivals, sizes and durations come from:
//   generator  Poisson arrivals at arrivals_per_day over [start_h, end_h): inter-arrival times are
//              exponential of mean 24/arrivals_per_day h; each job's size is drawn from sizes_gpus with
//              probabilities size_weights / Σ size_weights (equal when absent), its work (work_h: hours at
//              full size; it leaves when done) from duration_dist of mean duration_mean_h (exponential;
//              lognormal with σ = duration_sigma of ln, μ = ln(mean) − σ²/2 so the mean is duration_mean_h;
//              fixed). Expected jobs = arrivals_per_day × (end_h − start_h) / 24; mean size Σ wᵢgᵢ / Σ wᵢ.
//   trace      rows [arrival_h, gpus, work_h] (inline `trace`, or `trace_file`, a CSV with header
//              arrival_h,gpus,work_h that dcsim reads into `trace`).
// Trace jobs come first, then generated ones, named <name_prefix><index> (index from 0, 4 digits at
// least), appended to /jobs after the jobs listed there. Draws come from the stream "job_stream" of
// /job_stream/seed (default: the scenario's seed) for replica 0: every replica sees the same jobs (their
// failures and random placements differ), so replicas' intervals measure the factory, not the job draw;
// vary the seed to sample other streams. sequences_per_gpu (weak scaling) sets each generated job's
// model/global_batch = round(sequences_per_gpu × gpus) so one template fits every size.
// Problems of a generated job (its template's keys) are reported at /job_stream/template/..., naming the job.
#pragma once

#include "sim/json_reader.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dcsim::workload {

/// The most jobs a stream may expand into.
inline constexpr int MAX_STREAM_JOBS = 20000;

const sim::KeyTable& job_stream_keys();

/// One expanded job before it becomes a /jobs entry.
struct StreamJob {
  double arrival_h = 0;
  int gpus = 0;
  double work_h = 0;
};

/// The generator's part of a stream (the keys above).
struct StreamGenerator {
  double arrivals_per_day = 0;
  double start_h = 0, end_h = 0;
  std::vector<int> sizes_gpus;
  std::vector<double> size_weights; ///< same length as sizes_gpus
  enum class Dist { EXPONENTIAL, LOGNORMAL, FIXED } duration_dist = Dist::EXPONENTIAL;
  double duration_mean_h = 0;
  double duration_sigma = 0;
};

/// The generated jobs in arrival order (draws from the stream "job_stream" of `seed`, replica 0). Stops
/// (returning what it has) past `max_jobs`.
std::vector<StreamJob> generate_jobs(const StreamGenerator& g, std::uint64_t seed, int max_jobs = MAX_STREAM_JOBS + 1);

/// `document` with /job_stream expanded into /jobs and removed, or nullopt when the block has problems
/// (reported). A document without /job_stream comes back unchanged.
std::optional<sim::Json> expand_job_stream(const sim::Json& document, sim::Problems& problems);

/// Index in /jobs of the first generated job of `document` (its /jobs length before expansion).
std::size_t first_stream_job(const sim::Json& document);

/// A problem found while decoding the expanded document, moved to the stream's pointers when it is about
/// a generated job (index ≥ `first`): /jobs/N/KEY becomes /job_stream/template/KEY, naming the job.
sim::Problem stream_problem(const sim::Problem& p, std::size_t first, const sim::Json& expanded);

} // namespace dcsim::workload
