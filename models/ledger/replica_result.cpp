#include "models/ledger/replica_result.hpp"

#include <cmath>
#include <concepts>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace dcsim::ledger {

using workload::JobTime;


namespace {
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double J_PER_KWH = 3.6e6;
double ratio(double a, double b) { return b > 0 ? a / b : NaN; }
} // namespace

// Tokens of productive steps: productive GPU-seconds ÷ GPUs asked = seconds of full-size steps.
double retained_tokens(const JobOutcome& job) {
  if (!(job.tokens_per_step > 0) || !(job.step_time_s > 0) || job.gpus <= 0) return NaN;
  return job.gpu_h[static_cast<std::size_t>(JobTime::PRODUCTIVE)] * 3600.0 / job.gpus / job.step_time_s *
         job.tokens_per_step;
}

double job_state_gpu_h(const JobOutcome& job, JobTime state) { return job.gpu_h[static_cast<std::size_t>(state)]; }

Metrics job_metrics(const JobOutcome& job, double peak_flops_per_gpu) {
  const double wall_s = sim::to_seconds(job.wall);
  double held_gpu_h = 0;
  for (double h : job.gpu_h)
    held_gpu_h += h;
  const double goodput = held_gpu_h > 0 ? job.gpu_h[static_cast<std::size_t>(JobTime::PRODUCTIVE)] / held_gpu_h : NaN;
  const double peak = job.peak_flops_per_gpu > 0 ? job.peak_flops_per_gpu : peak_flops_per_gpu;
  const double mfu = job.model_flops_per_step / (job.step_time_s * job.gpus * peak);
  const double tokens_per_s = job.tokens_per_step > 0 ? job.tokens_per_step / job.step_time_s : NaN;
  Metrics m = {
      {"goodput_frac", goodput},
      {"mfu_frac", mfu},
      {"effective_mfu_frac", mfu * goodput},
      {"step_time_s", job.step_time_s},
      {"tokens_per_s", tokens_per_s},
      {"effective_tokens_per_s", tokens_per_s * goodput},
      {"interruptions", static_cast<double>(job.interruptions)},
      {"interruptions_training", static_cast<double>(job.interruptions - job.interruptions_recovery)},
      {"interruptions_recovery", static_cast<double>(job.interruptions_recovery)},
      {"interruptions_planned", static_cast<double>(job.interruptions_planned)},
      {"group_drops", static_cast<double>(job.group_drops)},
      {"job_mttf_h", job.interruptions > 0 ? wall_s / 3600.0 / static_cast<double>(job.interruptions) : NaN},
      {"expected_job_mtbf_h", job.expected_mtbf_h},
      {"checkpoint_interval_s", job.checkpoint_interval_s},
      {"checkpoints", static_cast<double>(job.checkpoints)},
      {"checkpoint_write_s", job.checkpoint_write_s},
      {"checkpoint_durable_s", job.checkpoint_durable_s},
      {"checkpoint_size_gb", job.checkpoint_size_gb},
      {"checkpoint_durable_max_s", job.checkpoint_durable_max_s},
      {"checkpoint_fallbacks", static_cast<double>(job.checkpoint_fallbacks)},
      {"checkpoint_drains_skipped", static_cast<double>(job.checkpoint_drains_skipped)},
      {"restart_reschedule_gpu_h", job.restart_part_gpu_h[static_cast<std::size_t>(workload::RestartPart::RESCHEDULE)]},
      {"restart_init_gpu_h", job.restart_part_gpu_h[static_cast<std::size_t>(workload::RestartPart::INIT)]},
      {"restart_load_gpu_h", job.restart_part_gpu_h[static_cast<std::size_t>(workload::RestartPart::LOAD)]},
      {"restart_load_s", job.restart_load_s},
      {"queue_h", sim::to_hours(job.queued)},
      {"span_leaves", job.span_leaves},
      {"span_pods", job.span_pods},
      {"span_planes", job.span_planes},
      {"step_alone_s", job.step_alone_s},
      {"step_shared_s", job.step_shared_s},
      {"fabric_slowdown_frac", job.fabric_slowdown_frac},
      {"exposed_comm_frac", job.exposed_comm_frac},
      {"completion_h", job.completed_at >= 0 ? sim::to_hours(job.completed_at) : NaN},
      {"deadline_met_frac", !(job.deadline_h > 0)       ? NaN
                            : job.completed_at < 0      ? 0.0
                            : sim::to_hours(job.completed_at) <= job.deadline_h ? 1.0
                                                                                : 0.0},
  };
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s)
    m.emplace_back("ledger_" + std::string(workload::job_time_name(static_cast<JobTime>(s))) + "_gpu_h",
                   job_state_gpu_h(job, static_cast<JobTime>(s)));
  m.emplace_back("energy_kwh", job.energy_j / J_PER_KWH);
  m.emplace_back("energy_per_token_j", ratio(job.energy_j, retained_tokens(job)));
  m.emplace_back("energy_per_useful_gpu_h_kwh",
                 ratio(job.energy_j / J_PER_KWH, job_state_gpu_h(job, JobTime::PRODUCTIVE)));
  return m;
}

Metrics service_metrics(const ServiceOutcome& sv, sim::Tick duration) {
  const double duration_s = sim::to_seconds(duration);
  return {
      {"served_frac", ratio(sv.served_tokens, sv.demanded_tokens)},
      {"demand_tokens_per_s", ratio(sv.demanded_tokens, duration_s)},
      {"served_tokens_per_s", ratio(sv.served_tokens, duration_s)},
      {"moves", static_cast<double>(sv.moves)},
      {"ledger_serving_gpu_h", sv.serving_gpu_h},
      {"ledger_moving_gpu_h", sv.moving_gpu_h},
      {"ledger_down_gpu_h", sv.down_gpu_h},
      {"slo_attainment_frac", sv.modelled ? ratio(sv.requests_met, sv.requests_demanded) : NaN},
      {"goodput_req_per_s", sv.modelled ? ratio(sv.requests_met, duration_s) : NaN},
      {"ttft_p50_s", sv.modelled ? sv.ttft_p50_s : NaN},
      {"ttft_p99_s", sv.modelled ? sv.ttft_p99_s : NaN},
      {"tpot_p50_s", sv.modelled ? sv.tpot_p50_s : NaN},
      {"tpot_p99_s", sv.modelled ? sv.tpot_p99_s : NaN},
      {"retried_requests", sv.modelled ? sv.retried_requests : NaN},
      {"serving_windows", sv.modelled ? static_cast<double>(sv.windows) : NaN},
      {"unused_gpu_h", sv.modelled ? sv.unused_gpu_h : NaN},
      {"energy_per_output_token_j", sv.modelled ? ratio(sv.energy_j, sv.served_tokens) : NaN},
      {"output_tokens_per_s_per_mw", sv.modelled ? ratio(sv.served_tokens, sv.energy_j / 1e6) : NaN},
  };
}

std::vector<std::string> service_ledger_states() { return {"serving", "moving", "down"}; }

std::vector<std::string> cluster_ledger_states() {
  std::vector<std::string> names;
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s)
    names.emplace_back(workload::job_time_name(static_cast<JobTime>(s)));
  for (const char* n : CLUSTER_ONLY_STATES)
    names.emplace_back(n);
  return names;
}

std::vector<double> cluster_ledger_gpu_h(const ReplicaResult& r) {
  std::vector<double> v(static_cast<std::size_t>(workload::JOB_TIME_STATES), 0.0);
  for (const auto& job : r.jobs)
    for (int s = 0; s < workload::JOB_TIME_STATES; ++s)
      v[static_cast<std::size_t>(s)] += job_state_gpu_h(job, static_cast<JobTime>(s));
  double inference = 0;
  for (const auto& sv : r.services)
    inference += sv.serving_gpu_h + sv.moving_gpu_h + sv.down_gpu_h;
  v.push_back(inference);
  for (double u : r.unallocated_gpu_h)
    v.push_back(u);
  return v;
}

Metrics cluster_metrics(const ReplicaResult& r) {
  const double gpu_h = static_cast<double>(r.gpus) * sim::to_hours(r.duration);
  double productive_gpu_h = 0;
  double retained_peak_s = 0; // retained model FLOPs of each job ÷ the peak at its own precision
  std::uint64_t failures = 0;
  for (const auto& job : r.jobs) {
    productive_gpu_h += job_state_gpu_h(job, JobTime::PRODUCTIVE);
    // Productive GPU-seconds / GPUs asked = seconds of full-size steps.
    const double retained_flops = job.model_flops_per_step *
                                  job.gpu_h[static_cast<std::size_t>(JobTime::PRODUCTIVE)] * 3600.0 / job.gpus /
                                  job.step_time_s;
    retained_peak_s += retained_flops / (job.peak_flops_per_gpu > 0 ? job.peak_flops_per_gpu : r.peak_flops_per_gpu);
  }
  for (const auto& m : r.modes)
    failures += m.failures;
  Metrics m = {
      {"goodput_frac", productive_gpu_h / gpu_h},
      {"effective_mfu_frac", retained_peak_s / (r.gpus * sim::to_seconds(r.duration))},
      {"failures", static_cast<double>(failures)},
      {"preemptions", static_cast<double>(r.preemptions)},
      {"cold_spare_activations", static_cast<double>(r.cold_spare_activations)},
      {"domain_swaps", static_cast<double>(r.domain_swaps)},
      {"failures_discarded", static_cast<double>(r.failures_discarded)},
  };
  const auto states = cluster_ledger_states();
  const auto values = cluster_ledger_gpu_h(r);
  for (std::size_t i = 0; i < states.size(); ++i)
    m.emplace_back("ledger_" + states[i] + "_gpu_h", values[i]);
  double tokens = 0;
  bool any_tokens = false;
  for (const auto& job : r.jobs)
    if (const double t = retained_tokens(job); !std::isnan(t)) {
      tokens += t;
      any_tokens = true;
    }
  const double duration_s = sim::to_seconds(r.duration);
  m.emplace_back("energy_mwh", r.energy_j / J_PER_KWH / 1000.0);
  m.emplace_back("mean_power_kw", ratio(r.energy_j, duration_s) / 1000.0);
  m.emplace_back("peak_power_kw", r.peak_power_w / 1000.0);
  m.emplace_back("energy_per_token_j", any_tokens ? ratio(r.energy_j, tokens) : NaN);
  m.emplace_back("energy_per_useful_gpu_h_kwh", ratio(r.energy_j / J_PER_KWH, productive_gpu_h));
  m.emplace_back("cooling_isolated_gpu_h", r.cooling_isolated_gpu_h);
  m.emplace_back("throttled_gpu_h", r.throttled_gpu_h);
  m.emplace_back("power_capped_gpu_h", r.power_capped_gpu_h);
  return m;
}

namespace {

// The serialiser's field list, written once for both directions: `io` is a Writer (fields const) or a
// Reader. A new field of these structs needs its line here and nowhere else.
template <class IO, class J>
  requires std::same_as<std::remove_const_t<J>, JobOutcome>
void visit_fields(IO& io, J& j) {
  io(j.name), io(j.gpus), io(j.wall), io(j.queued), io(j.completed_at), io(j.deadline_h), io(j.reallocations), io(j.gpu_h);
  io(j.interruptions), io(j.interruptions_recovery), io(j.interruptions_planned), io(j.group_drops), io(j.checkpoints), io(j.failures_by_mode);
  io(j.interruptions_by_mode), io(j.step_time_s), io(j.checkpoint_interval_s), io(j.model_flops_per_step);
  io(j.tokens_per_step), io(j.expected_mtbf_h), io(j.peak_flops_per_gpu), io(j.energy_j);
  io(j.checkpoint_write_s), io(j.checkpoint_durable_s), io(j.checkpoint_size_gb), io(j.checkpoint_fallbacks);
  io(j.restart_part_gpu_h), io(j.checkpoint_durable_max_s), io(j.checkpoint_drains_skipped), io(j.restart_load_s);
  io(j.span_leaves), io(j.span_pods), io(j.span_planes);
  io(j.step_alone_s), io(j.step_shared_s), io(j.fabric_slowdown_frac), io(j.exposed_comm_frac);
  io(j.losses);
}
template <class IO, class L>
  requires std::same_as<std::remove_const_t<L>, LossCell>
void visit_fields(IO& io, L& c) {
  io(c.state), io(c.cause), io(c.gpu_us);
}
template <class IO, class M>
  requires std::same_as<std::remove_const_t<M>, ModeOutcome>
void visit_fields(IO& io, M& m) {
  io(m.name), io(m.domain), io(m.failures), io(m.repaired), io(m.time_to_repair_h);
}
template <class IO, class V>
  requires std::same_as<std::remove_const_t<V>, ServiceOutcome>
void visit_fields(IO& io, V& v) {
  io(v.name), io(v.gpus), io(v.demanded_tokens), io(v.served_tokens), io(v.serving_gpu_h), io(v.moving_gpu_h);
  io(v.down_gpu_h), io(v.moves), io(v.energy_j), io(v.modelled), io(v.isl), io(v.osl), io(v.requests_demanded);
  io(v.requests_served), io(v.requests_met), io(v.retried_requests), io(v.windows), io(v.ttft_p50_s);
  io(v.ttft_p99_s), io(v.tpot_p50_s), io(v.tpot_p99_s), io(v.prefill_time_frac), io(v.unused_gpu_h);
}
template <class IO, class E>
  requires std::same_as<std::remove_const_t<E>, sim::EventRecord>
void visit_fields(IO& io, E& e) {
  io(e.time), io(e.kind), io(e.component), io(e.scope), io(e.job), io(e.detail);
}
template <class IO, class S>
  requires std::same_as<std::remove_const_t<S>, Sample>
void visit_fields(IO& io, S& s) {
  io(s.time), io(s.entity), io(s.gauge), io(s.value);
}
template <class IO, class U>
  requires std::same_as<std::remove_const_t<U>, TierUtilisationRow>
void visit_fields(IO& io, U& u) {
  io(u.tier), io(u.time_s), io(u.p50_frac), io(u.p99_frac), io(u.max_frac), io(u.mean_frac), io(u.links);
}
template <class IO, class R>
  requires std::same_as<std::remove_const_t<R>, ReplicaResult>
void visit_fields(IO& io, R& r) {
  io(r.replica), io(r.gpus), io(r.duration), io(r.peak_flops_per_gpu), io(r.jobs), io(r.services);
  io(r.unallocated_gpu_h), io(r.preemptions), io(r.cold_spare_activations), io(r.domain_swaps);
  io(r.failures_discarded), io(r.rack_down_gpu_h), io(r.rack_failures), io(r.modes);
  io(r.events), io(r.samples), io(r.energy_j), io(r.peak_power_w), io(r.cooling_isolated_gpu_h);
  io(r.throttled_gpu_h), io(r.power_capped_gpu_h), io(r.fabric_utilisation), io(r.fabric_utilisation_series);
}

// A new field usually changes its struct's size (not a small one that fits in padding): these then fail
// until the field is in visit_fields above and the size updated. The round-trip test in
// tests/unit/ledger/metric_table_test.cpp is the other guard. Sizes on 64-bit targets (x86-64, arm64).
constexpr bool LP64 = sizeof(void*) == 8;
static_assert(!LP64 || sizeof(ReplicaResult) == 328, "ReplicaResult changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(JobOutcome) == 456, "JobOutcome changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(ServiceOutcome) == 200, "ServiceOutcome changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(ModeOutcome) == 88, "ModeOutcome changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(TierUtilisationRow) == 80, "TierUtilisationRow changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(LossCell) == 32, "LossCell changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(Sample) == 32, "Sample changed: update visit_fields, then this size");
static_assert(!LP64 || sizeof(sim::EventRecord) == 72, "EventRecord changed: update visit_fields, then this size");

template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {};
template <class T> struct IsArray : std::false_type {};
template <class T, std::size_t N> struct IsArray<std::array<T, N>> : std::true_type {};

// Numbers as their bytes (exact, NaN and infinities included), strings and vectors length-prefixed.
struct Writer {
  std::string out;
  template <class T> Writer& operator()(const T& v) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, workload::GpuTicks>) {
      out.append(reinterpret_cast<const char*>(&v), sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      (*this)(static_cast<std::uint64_t>(v.size()));
      out.append(v);
    } else if constexpr (std::is_same_v<T, sim::Name>) {
      (*this)(v.str());
    } else if constexpr (IsVector<T>::value || IsArray<T>::value) {
      if constexpr (IsVector<T>::value) (*this)(static_cast<std::uint64_t>(v.size()));
      for (const auto& x : v)
        (*this)(x);
    } else {
      visit_fields(*this, v);
    }
    return *this;
  }
};

struct Reader {
  std::string_view in;
  std::size_t pos = 0;
  std::string_view take(std::size_t n) {
    if (n > in.size() - pos) throw std::runtime_error("decode_replica: truncated payload");
    const std::string_view bytes = in.substr(pos, n);
    pos += n;
    return bytes;
  }
  std::string_view take_string() {
    std::uint64_t n = 0;
    (*this)(n);
    return take(n);
  }
  template <class T> Reader& operator()(T& v) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, workload::GpuTicks>) {
      std::memcpy(&v, take(sizeof(T)).data(), sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      v = std::string(take_string());
    } else if constexpr (std::is_same_v<T, sim::Name>) {
      v = sim::Name(take_string());
    } else if constexpr (IsVector<T>::value) {
      std::uint64_t n = 0;
      (*this)(n);
      if (n > in.size() - pos) throw std::runtime_error("decode_replica: truncated payload");
      v.assign(n, typename T::value_type{});
      for (auto& x : v)
        (*this)(x);
    } else if constexpr (IsArray<T>::value) {
      for (auto& x : v)
        (*this)(x);
    } else {
      visit_fields(*this, v);
    }
    return *this;
  }
};

} // namespace

std::string encode_replica(const ReplicaResult& result) {
  Writer w;
  w(result);
  return std::move(w.out);
}

ReplicaResult decode_replica(std::string_view payload) {
  Reader reader{payload};
  ReplicaResult r;
  reader(r);
  if (reader.pos != payload.size()) throw std::runtime_error("decode_replica: trailing bytes");
  return r;
}

} // namespace dcsim::ledger
