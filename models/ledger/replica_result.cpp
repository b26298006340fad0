#include "models/ledger/replica_result.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dcsim::ledger {

using Json = nlohmann::json;
using workload::JobTime;

namespace {
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

// JSON has no NaN or infinity: encode them as strings.
Json encode_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
template <typename Doubles> Json encode_doubles(const Doubles& values) {
  Json a = Json::array();
  for (double v : values)
    a.push_back(encode_double(v));
  return a;
}
double decode_double(const Json& j) {
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return NaN;
    return s == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return j.get<double>();
}
template <typename Doubles> void decode_doubles(const Json& j, Doubles& out) {
  if constexpr (requires { out.push_back(0.0); }) {
    out.clear();
    for (const auto& v : j)
      out.push_back(decode_double(v));
  } else {
    if (j.size() != out.size()) throw std::runtime_error("replica_from_json: wrong array size");
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = decode_double(j.at(i));
  }
}
} // namespace

namespace {
constexpr double J_PER_KWH = 3.6e6;
// Tokens of productive steps: productive GPU-seconds ÷ GPUs asked = seconds of full-size steps.
double retained_tokens(const JobOutcome& job) {
  if (!(job.tokens_per_step > 0) || !(job.step_time_s > 0) || job.gpus <= 0) return NaN;
  return job.gpu_h[static_cast<std::size_t>(JobTime::PRODUCTIVE)] * 3600.0 / job.gpus / job.step_time_s *
         job.tokens_per_step;
}
double ratio(double a, double b) { return b > 0 ? a / b : NaN; }
} // namespace

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
      {"interruptions_planned", static_cast<double>(job.interruptions_planned)},
      {"job_mttf_h", job.interruptions > 0 ? wall_s / 3600.0 / static_cast<double>(job.interruptions) : NaN},
      {"expected_job_mtbf_h", job.expected_mtbf_h},
      {"checkpoint_interval_s", job.checkpoint_interval_s},
      {"checkpoints", static_cast<double>(job.checkpoints)},
      {"queue_h", sim::to_hours(job.queued)},
      {"completion_h", job.completed_at >= 0 ? sim::to_hours(job.completed_at) : NaN},
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

std::string to_json(const ReplicaResult& r) {
  Json j;
  j["replica"] = r.replica;
  j["gpus"] = r.gpus;
  j["duration"] = r.duration;
  j["peak_flops_per_gpu"] = encode_double(r.peak_flops_per_gpu);
  j["unallocated_gpu_h"] = encode_doubles(r.unallocated_gpu_h);
  Json jobs = Json::array();
  for (const auto& job : r.jobs) {
    jobs.push_back({{"name", job.name},
                    {"gpus", job.gpus},
                    {"wall", job.wall},
                    {"queued", job.queued},
                    {"completed_at", job.completed_at},
                    {"reallocations", job.reallocations},
                    {"gpu_h", encode_doubles(job.gpu_h)},
                    {"interruptions", job.interruptions},
                    {"interruptions_planned", job.interruptions_planned},
                    {"checkpoints", job.checkpoints},
                    {"failures_by_mode", job.failures_by_mode},
                    {"interruptions_by_mode", job.interruptions_by_mode},
                    {"step_time_s", job.step_time_s},
                    {"checkpoint_interval_s", job.checkpoint_interval_s},
                    {"model_flops_per_step", encode_double(job.model_flops_per_step)},
                    {"tokens_per_step", encode_double(job.tokens_per_step)},
                    {"expected_mtbf_h", encode_double(job.expected_mtbf_h)},
                    {"peak_flops_per_gpu", encode_double(job.peak_flops_per_gpu)},
                    {"energy_j", encode_double(job.energy_j)}});
  }
  j["jobs"] = jobs;
  Json services = Json::array();
  for (const auto& sv : r.services)
    services.push_back({{"name", sv.name},
                        {"gpus", sv.gpus},
                        {"demanded_tokens", encode_double(sv.demanded_tokens)},
                        {"served_tokens", encode_double(sv.served_tokens)},
                        {"serving_gpu_h", encode_double(sv.serving_gpu_h)},
                        {"moving_gpu_h", encode_double(sv.moving_gpu_h)},
                        {"down_gpu_h", encode_double(sv.down_gpu_h)},
                        {"moves", sv.moves}});
  j["services"] = services;
  j["preemptions"] = r.preemptions;
  j["rack_down_gpu_h"] = encode_doubles(r.rack_down_gpu_h);
  j["rack_failures"] = r.rack_failures;
  Json modes = Json::array();
  for (const auto& m : r.modes)
    modes.push_back({{"name", m.name}, {"failures", m.failures}, {"repaired", m.repaired},
                     {"time_to_repair_h", encode_double(m.time_to_repair_h)}});
  j["modes"] = modes;
  Json events = Json::array();
  for (const auto& e : r.events)
    events.push_back(Json::array({e.time, e.kind, e.component, e.scope, e.job, e.detail}));
  j["events"] = events;
  Json samples = Json::array();
  for (const auto& s : r.samples)
    samples.push_back(Json::array({s.time, s.entity, s.gauge, encode_double(s.value)}));
  j["samples"] = samples;
  j["energy_j"] = encode_double(r.energy_j);
  j["peak_power_w"] = encode_double(r.peak_power_w);
  j["cooling_isolated_gpu_h"] = encode_double(r.cooling_isolated_gpu_h);
  j["throttled_gpu_h"] = encode_double(r.throttled_gpu_h);
  j["power_capped_gpu_h"] = encode_double(r.power_capped_gpu_h);
  return j.dump();
}

ReplicaResult replica_from_json(const std::string& text) {
  const Json j = Json::parse(text);
  ReplicaResult r;
  r.replica = j.at("replica").get<int>();
  r.gpus = j.at("gpus").get<int>();
  r.duration = j.at("duration").get<sim::Tick>();
  r.peak_flops_per_gpu = decode_double(j.at("peak_flops_per_gpu"));
  decode_doubles(j.at("unallocated_gpu_h"), r.unallocated_gpu_h);
  for (const auto& jj : j.at("jobs")) {
    JobOutcome job;
    job.name = jj.at("name").get<std::string>();
    job.gpus = jj.at("gpus").get<int>();
    job.wall = jj.at("wall").get<sim::Tick>();
    job.queued = jj.at("queued").get<sim::Tick>();
    job.completed_at = jj.at("completed_at").get<sim::Tick>();
    job.reallocations = jj.at("reallocations").get<int>();
    decode_doubles(jj.at("gpu_h"), job.gpu_h);
    job.interruptions = jj.at("interruptions").get<std::uint64_t>();
    job.interruptions_planned = jj.at("interruptions_planned").get<std::uint64_t>();
    job.checkpoints = jj.at("checkpoints").get<std::uint64_t>();
    job.failures_by_mode = jj.at("failures_by_mode").get<std::vector<std::uint64_t>>();
    job.interruptions_by_mode = jj.at("interruptions_by_mode").get<std::vector<std::uint64_t>>();
    job.step_time_s = decode_double(jj.at("step_time_s"));
    job.checkpoint_interval_s = decode_double(jj.at("checkpoint_interval_s"));
    job.model_flops_per_step = decode_double(jj.at("model_flops_per_step"));
    job.tokens_per_step = decode_double(jj.at("tokens_per_step"));
    job.expected_mtbf_h = decode_double(jj.at("expected_mtbf_h"));
    job.peak_flops_per_gpu = decode_double(jj.at("peak_flops_per_gpu"));
    job.energy_j = decode_double(jj.at("energy_j"));
    r.jobs.push_back(std::move(job));
  }
  for (const auto& sj : j.at("services")) {
    ServiceOutcome sv;
    sv.name = sj.at("name").get<std::string>();
    sv.gpus = sj.at("gpus").get<int>();
    sv.demanded_tokens = decode_double(sj.at("demanded_tokens"));
    sv.served_tokens = decode_double(sj.at("served_tokens"));
    sv.serving_gpu_h = decode_double(sj.at("serving_gpu_h"));
    sv.moving_gpu_h = decode_double(sj.at("moving_gpu_h"));
    sv.down_gpu_h = decode_double(sj.at("down_gpu_h"));
    sv.moves = sj.at("moves").get<int>();
    r.services.push_back(std::move(sv));
  }
  r.preemptions = j.at("preemptions").get<int>();
  decode_doubles(j.at("rack_down_gpu_h"), r.rack_down_gpu_h);
  r.rack_failures = j.at("rack_failures").get<std::vector<std::uint64_t>>();
  for (const auto& m : j.at("modes"))
    r.modes.push_back({m.at("name").get<std::string>(), m.at("failures").get<std::uint64_t>(),
                       m.at("repaired").get<std::uint64_t>(), decode_double(m.at("time_to_repair_h"))});
  for (const auto& e : j.at("events"))
    r.events.push_back({e.at(0).get<sim::Tick>(), e.at(1).get<std::string>(), e.at(2).get<std::string>(),
                        e.at(3).get<std::string>(), e.at(4).get<std::string>(), e.at(5).get<std::string>()});
  for (const auto& s : j.at("samples"))
    r.samples.push_back({s.at(0).get<sim::Tick>(), s.at(1).get<std::string>(), s.at(2).get<std::string>(),
                         decode_double(s.at(3))});
  r.energy_j = decode_double(j.at("energy_j"));
  r.peak_power_w = decode_double(j.at("peak_power_w"));
  r.cooling_isolated_gpu_h = decode_double(j.at("cooling_isolated_gpu_h"));
  r.throttled_gpu_h = decode_double(j.at("throttled_gpu_h"));
  r.power_capped_gpu_h = decode_double(j.at("power_capped_gpu_h"));
  return r;
}

} // namespace dcsim::ledger
