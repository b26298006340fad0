#include "models/workload/spec.hpp"

#include "models/workload/transformer_flops.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace dcsim::workload {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::Bounds;
using sim::ValueType;

// flat table: the jobs' key table, one KeyDef a key (STYLE.md: the allowed-key list and its docs).
const KeyTable& job_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*",
      "one job; kind training: a synchronous data-parallel training run; kind inference: a service that "
      "follows a demand curve",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr, "identifier used in every output (letters, digits, _ . -)"},
          KeyDef{"kind", ValueType::STRING, "", "training", "what the job does", {}, {"training", "inference"}},
          KeyDef{"gpus", ValueType::INTEGER, "", nullptr, "GPUs the job runs on", hardware::gpu_count(1)},
          KeyDef{"step_time_s", ValueType::NUMBER, "s", nullptr, "measured time of one training step on healthy GPUs",
                 sim::positive(), {},
                 "without model: no step time (progress is continuous; step_time_s, tokens_per_s and MFU "
                 "are empty in the outputs); derived with it"},
          KeyDef{"model_flops_per_step", ValueType::NUMBER, "FLOP", nullptr,
                 "model FLOPs of one step over all GPUs (6·N·tokens + attention), for MFU", sim::non_negative(), {},
                 "without model: unknown (mfu_frac and effective_mfu_frac are empty in the outputs); derived "
                 "with it"},
          KeyDef{"tokens_per_step", ValueType::NUMBER, "", nullptr, "tokens of one global batch, for tokens_per_s",
                 sim::positive(), {}, "without model: unknown (no tokens_per_s); derived with it"},
          KeyDef{"nvlink_comm_frac", ValueType::NUMBER, "", 0.0,
                 "without model: share of the healthy step in exposed NVLink communication; it stretches by "
                 "1/share when a rack's NVLink runs degraded (nvlink_degraded_frac faults)",
                 sim::fraction()},
          KeyDef{"scaleout_comm_frac", ValueType::NUMBER, "", 0.0,
                 "without model: share of the healthy step in exposed scale-out communication; the step "
                 "stretches by 1 + frac x (1/bw - 1) when fabric faults leave the slowest GPU a share bw",
                 sim::fraction()},
          KeyDef{"model", ValueType::OBJECT, "", nullptr,
                 "transformer whose step time, FLOPs and memory are derived (see /jobs/*/model)", {}, {},
                 "absent: measured step_time_s"},
          KeyDef{"parallelism", ValueType::OBJECT, "", nullptr,
                 "how model is split over the GPUs (see /jobs/*/parallelism); only with model", {}, {},
                 "all GPUs data-parallel"},
          KeyDef{"checkpoint", ValueType::OBJECT, "", Json::object(), "checkpointing (see /jobs/*/checkpoint)"},
          KeyDef{"recovery", ValueType::OBJECT, "", Json::object(),
                 "training only: recovery strategy, restart or fault-tolerant data parallelism (see "
                 "/jobs/*/recovery)"},
          KeyDef{"priority", ValueType::INTEGER, "", 0,
                 "scheduling priority: higher is placed first and may preempt lower-priority jobs",
                 sim::between(-1000000, 1000000)},
          KeyDef{"arrival_h", ValueType::NUMBER, "h", 0.0, "when the job is submitted", sim::non_negative()},
          KeyDef{"work_h", ValueType::NUMBER, "h", 0.0,
                 "hours of training at full size the job needs; it ends (and frees its GPUs) when done; 0 = runs "
                 "to the end",
                 sim::non_negative()},
          KeyDef{"target_tokens", ValueType::NUMBER, "tokens", nullptr,
                 "training target: the job ends once its productive steps have retained this many tokens (sets "
                 "work_h from the tokens per step and the healthy step time; completion_h and cost_to_train_usd "
                 "report when and at what cost)",
                 sim::Bounds{0.0, 1e18, true, false}, {}, "none: work_h decides"},
          KeyDef{"deadline_h", ValueType::NUMBER, "h", nullptr,
                 "the job's work (work_h or target_tokens) is due this long after the start of the run: "
                 "deadline_met_frac says whether it was done by then (its mean over replicas: the probability)",
                 sim::Bounds{0.0, sim::MAX_DURATION_H, true, false}, {}, "none"},
          KeyDef{"tokens_per_s_per_gpu", ValueType::NUMBER, "tokens/s", nullptr,
                 "inference only: tokens one GPU serves per second", sim::positive(), {},
                 "required for inference without serving"},
          KeyDef{"serving", ValueType::OBJECT, "", nullptr,
                 "inference only: served model and instance whose operating curve gives tokens_per_s_per_gpu at "
                 "the TPOT SLO (see /jobs/*/serving)", {}, {}, "absent: tokens_per_s_per_gpu"},
          KeyDef{"demand_tokens_per_s", ValueType::NUMBER, "tokens/s", nullptr,
                 "inference only: mean demand", sim::non_negative(), {},
                 "required for inference without a demand trace"},
          KeyDef{"demand_trace", ValueType::ARRAY, "", nullptr,
                 "inference only: demand as [time_h, demand_tokens_per_s] pairs, time increasing; each value holds "
                 "until the next (the first also before it); the SUNK policy acts at each point",
                 {}, {}, "none: the daily profile"},
          KeyDef{"demand_trace_file", ValueType::STRING, "", nullptr,
                 "inference only: CSV file (header time_h,demand_tokens_per_s), relative to the scenario file; "
                 "read by dcsim as demand_trace",
                 {}, {}, "none"},
          KeyDef{"demand_swing_frac", ValueType::NUMBER, "", 0.0,
                 "inference only: daily swing of demand around its mean (demand x (1 + swing x cos(...)))",
                 sim::fraction()},
          KeyDef{"demand_peak_hour", ValueType::NUMBER, "h", 14.0, "inference only: hour of the day of peak demand",
                 Bounds{0, 24, false, true}},
          KeyDef{"demand_step_h", ValueType::NUMBER, "h", 1.0,
                 "inference only: demand is constant over steps this long; the SUNK policy acts at each", sim::positive()},
          KeyDef{"move_s", ValueType::NUMBER, "s", 300.0,
                 "inference only: time for a domain moved from training to start serving", sim::non_negative()},
          KeyDef{"sunk", ValueType::BOOLEAN, "", true,
                 "inference only: follow demand, borrowing domains from elastic training jobs of lower priority; "
                 "false: hold gpus from the start"},
          KeyDef{"min_gpus_frac", ValueType::NUMBER, "", 1.0,
                 "elastic data parallelism: the job may run on as little as this share of its GPUs (whole NVLink "
                 "domains) when capacity is short or lent to inference; 1 = not elastic",
                 Bounds{0.0, 1.0, true, false}},
      }};
  return table;
}

const KeyTable& checkpoint_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*/checkpoint", "how often the job checkpoints and what a checkpoint costs",
      {
          KeyDef{"interval_s", ValueType::NUMBER_OR_STRING, "s", "auto",
                 "compute between checkpoints, rounded to whole steps; \"auto\": Daly's optimum for the "
                 "expected failure rate of the job's GPUs",
                 sim::positive(), {"auto"}},
          KeyDef{"write_s", ValueType::NUMBER, "s", 30.0,
                 "blocking time of one checkpoint write (with tiers: overrides the time they give)",
                 sim::non_negative()},
          KeyDef{"tiers", ValueType::ARRAY, "", Json::array(),
                 "storage tiers the checkpoint goes to, fastest first (names of /storage/tiers); empty: the "
                 "write costs write_s and the restart's load is part of operations.restart_s"},
          KeyDef{"async", ValueType::BOOLEAN, "", false,
                 "training blocks only for the snapshot into host memory (the first tier); the copy drains to "
                 "the later tiers in the background"},
          KeyDef{"size_gb", ValueType::NUMBER_OR_STRING, "GB", "auto",
                 "checkpoint size; \"auto\": the model's parameters x 14 bytes (bf16 weights, fp32 Adam state)",
                 sim::positive(), {"auto"}},
      }};
  return table;
}

std::string check_demand_time(double previous_time_h, double time_h) {
  if (!(time_h >= 0)) return "must be >= 0";
  if (previous_time_h >= 0 && !(time_h > previous_time_h))
    return fmt::format("must exceed the previous time_h ({})", previous_time_h);
  return {};
}

std::string check_demand_value(double tokens_per_s) {
  if (!(tokens_per_s >= 0) || !std::isfinite(tokens_per_s)) return "must be a finite number >= 0";
  return {};
}

namespace {

/// An inference job's demand trace, inline (demand_trace) or named (demand_trace_file, read by the tools).
void decode_demand_trace(const sim::Node& j, JobSpec& job) {
  if (const Json* trace = j.raw("demand_trace")) {
    if (!trace->is_array() || trace->empty()) {
      j.problem("demand_trace", "must be a non-empty array of [time_h, demand_tokens_per_s] pairs");
    } else {
      double previous = -1;
      for (std::size_t i = 0; i < trace->size(); ++i) {
        const Json& p = (*trace)[i];
        const std::string at = j.child_pointer("demand_trace") + "/" + std::to_string(i);
        if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
          j.problems().add(at, "must be a pair [time_h, demand_tokens_per_s] of numbers", &p);
          continue;
        }
        const double t = p[0].get<double>(), d = p[1].get<double>();
        if (auto e = check_demand_time(previous, t); !e.empty()) j.problems().add(at + "/0", e, &p[0]);
        if (auto e = check_demand_value(d); !e.empty()) j.problems().add(at + "/1", e, &p[1]);
        previous = t;
        job.demand_trace.emplace_back(t, d);
      }
    }
  }
  if (auto file = j.optional_string("demand_trace_file")) {
    job.demand_trace_file = *file;
    if (j.has("demand_trace"))
      j.problem("demand_trace_file", "give demand_trace or demand_trace_file, not both");
    else if (file->empty())
      j.problem("demand_trace_file", "must name a file");
  }
}

} // namespace

namespace {

void decode_job_name(const sim::Node& j, JobSpec& job, std::set<std::string>& names) {
  job.name = j.string("name");
  if (!j.has("name")) return;
  if (job.name.empty() ||
      job.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != std::string::npos)
    j.problem("name", "must be non-empty and use only letters, digits, '_', '.' and '-'");
  else if (job.name.size() > sim::MAX_NAME_CHARS)
    j.problem("name", sim::name_problem(job.name));
  else if (job.name == "cluster")
    j.problem("name", "\"cluster\" is reserved for cluster-wide rows of the outputs");
  else if (!names.insert(job.name).second)
    j.problem("name", "duplicate job name");
}

void decode_inference_job(const sim::Node& j, JobSpec& job) {
  for (const char* key : {"step_time_s", "model_flops_per_step", "tokens_per_step", "scaleout_comm_frac",
                          "nvlink_comm_frac", "model", "parallelism", "checkpoint", "work_h", "target_tokens",
                          "deadline_h", "recovery"})
    if (j.has(key)) j.problem(key, "applies only to training jobs (this job's kind is \"inference\")");
  decode_demand_trace(j, job);
  if (j.has("serving")) {
    job.serving = serving::decode_serving(j.object("serving", serving::serving_keys()));
    if (j.has("tokens_per_s_per_gpu"))
      j.problem("tokens_per_s_per_gpu", "and serving both set the capacity per GPU: give one");
  } else if (!j.has("tokens_per_s_per_gpu")) {
    j.problem_here("missing tokens_per_s_per_gpu (required for kind \"inference\" without serving)");
  }
  if (job.has_demand_trace()) {
    for (const char* key : {"demand_tokens_per_s", "demand_swing_frac", "demand_peak_hour", "demand_step_h"})
      if (j.has(key)) j.problem(key, "has no effect with a demand trace (the trace is the demand)");
  } else if (!j.has("demand_tokens_per_s")) {
    j.problem_here("missing demand_tokens_per_s (required for kind \"inference\" without a demand trace)");
  }
  job.tokens_per_s_per_gpu = j.optional_number("tokens_per_s_per_gpu").value_or(1);
  job.demand_tokens_per_s = j.optional_number("demand_tokens_per_s").value_or(0);
  job.demand_swing_frac = j.number("demand_swing_frac");
  job.demand_peak_hour = j.number("demand_peak_hour");
  job.demand_step_h = j.number("demand_step_h");
  job.move_s = j.number("move_s");
  job.sunk = j.boolean("sunk");
  job.priority = j.int32("priority");
  job.arrival_h = j.number("arrival_h");
  job.min_gpus_frac = j.number("min_gpus_frac");
  if (job.arrival_h > 0) j.problem("arrival_h", "inference services run from the start");
  job.step_time_s = 1; // unused; keeps the derived timing well-defined
  job.checkpoint = {false, 1, 0};
}

/// Where a training job's checkpoints go (the tiers themselves are checked against /storage by the
/// scenario's cross-checks).
void decode_checkpoint_storage(const sim::Node& c, JobSpec& job) {
  job.checkpoint.write_given = c.has("write_s");
  job.checkpoint.async = c.boolean("async");
  const auto size = c.number_or_word("size_gb");
  job.checkpoint.size_auto = !size.number.has_value();
  job.checkpoint.size_gb = size.number.value_or(0);
  if (const Json* tiers = c.raw("tiers"); tiers && tiers->is_array()) {
    for (std::size_t i = 0; i < tiers->size(); ++i) {
      const Json& t = (*tiers)[i];
      if (t.is_string())
        job.checkpoint.tiers.push_back(t.get<std::string>());
      else
        c.problems().add(c.child_pointer("tiers") + "/" + std::to_string(i), "must be a tier name (a string)", &t);
    }
  }
  if (job.checkpoint.tiers.empty()) {
    if (job.checkpoint.async) c.problem("async", "needs tiers (a host_memory tier first)");
    if (c.has("size_gb")) c.problem("size_gb", "needs tiers: without them a checkpoint costs write_s");
  } else if (job.checkpoint.size_auto && !job.model) {
    c.problem("size_gb", "is required for a job without a model (\"auto\" derives it from the model)");
  }
}

/// A training job's step: measured (each number optional: a reliability-only study needs none), or
/// derived from its model.
void decode_step(const sim::Node& j, JobSpec& job) {
  if (!j.has("model")) {
    if (j.has("parallelism")) j.problem("parallelism", "applies only to jobs with a model (/jobs/*/model)");
  } else {
    // One source of truth per number: with a model these are derived, never also given.
    for (const char* key : {"step_time_s", "model_flops_per_step", "tokens_per_step", "scaleout_comm_frac",
                            "nvlink_comm_frac"})
      if (j.has(key)) j.problem(key, "is derived from model; remove it (or remove model to use a measured value)");
  }
  if (auto v = j.optional_number("step_time_s")) job.step_time_s = *v;
  job.model_flops_per_step = j.optional_number("model_flops_per_step").value_or(UNKNOWN_FLOPS);
  if (auto v = j.optional_number("tokens_per_step")) job.tokens_per_step = *v;
  job.scaleout_comm_frac = j.number("scaleout_comm_frac");
  job.nvlink_comm_frac = j.number("nvlink_comm_frac");
  if (job.scaleout_comm_frac + job.nvlink_comm_frac > 1)
    j.problem_here("scaleout_comm_frac + nvlink_comm_frac must not exceed 1 (shares of one step)");
  if (j.has("model")) {
    job.model = decode_model_job(j, job.gpus);
    job.step_time_s = 0;
    job.model_flops_per_step = model_flops_per_step(job.model->model);
    job.tokens_per_step = job.model->model.tokens_per_step();
  }
}

void decode_training_job(const sim::Node& j, JobSpec& job) {
  for (const char* key : {"tokens_per_s_per_gpu", "demand_tokens_per_s", "demand_swing_frac", "demand_peak_hour",
                          "demand_step_h", "move_s", "sunk", "demand_trace", "demand_trace_file", "serving"})
    if (j.has(key)) j.problem(key, "applies only to inference jobs (this job's kind is \"training\")");
  decode_step(j, job);
  job.priority = j.int32("priority");
  job.arrival_h = j.number("arrival_h");
  job.work_h = j.number("work_h");
  job.min_gpus_frac = j.number("min_gpus_frac");
  job.recovery = decode_recovery(j, job.gpus, job.model ? &*job.model : nullptr, job.min_gpus_frac);
  if (auto target = j.optional_number("target_tokens")) {
    job.target_tokens = *target;
    if (j.has("work_h"))
      j.problem("target_tokens", "and work_h both set the job's work: give one");
    else if (!(job.tokens_per_step > 0))
      j.problem("target_tokens", "needs the job's tokens per step: a model, or tokens_per_step");
    else if (!(job.step_time_s > 0) && !j.has("model"))
      j.problem("target_tokens", "needs the job's step time: a model, or step_time_s");
  }
  if (auto deadline = j.optional_number("deadline_h")) {
    job.deadline_h = *deadline;
    if (!(job.work_h > 0) && !j.has("target_tokens"))
      j.problem("deadline_h", "needs the job's work: work_h or target_tokens (an open-ended job has no end to be late)");
  }

  const sim::Node c = j.object("checkpoint", checkpoint_keys());
  const auto interval = c.number_or_word("interval_s");
  job.checkpoint.auto_interval = !interval.number.has_value();
  job.checkpoint.interval_s = interval.number.value_or(0);
  job.checkpoint.write_s = c.number("write_s");
  if (job.checkpoint.auto_interval && c.has("write_s") && job.checkpoint.write_s == 0)
    c.problem("write_s", "must be > 0 with interval_s \"auto\": Daly's interval needs a write cost "
                         "(give interval_s to checkpoint at a fixed interval)");
  decode_checkpoint_storage(c, job);
}

} // namespace

std::vector<JobSpec> decode_jobs(const sim::Node& scenario) {
  std::vector<JobSpec> jobs;
  std::set<std::string> names;
  for (const sim::Node& j : scenario.objects("jobs", job_keys())) {
    JobSpec job;
    decode_job_name(j, job, names);
    job.kind = j.string("kind") == "inference" ? JobKind::INFERENCE : JobKind::TRAINING;
    job.gpus = j.int32("gpus");
    if (job.kind == JobKind::INFERENCE)
      decode_inference_job(j, job);
    else
      decode_training_job(j, job);
    jobs.push_back(job);
  }
  return jobs;
}

} // namespace dcsim::workload
