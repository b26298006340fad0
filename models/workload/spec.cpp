#include "models/workload/spec.hpp"

#include "models/workload/transformer_flops.hpp"

#include <set>

namespace dcsim::workload {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::Bounds;
using sim::ValueType;

const KeyTable& job_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*", "one job; kind training: a synchronous data-parallel training run",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr, "identifier used in every output (letters, digits, _ . -)"},
          KeyDef{"kind", ValueType::STRING, "", "training", "what the job does", {}, {"training"}},
          KeyDef{"gpus", ValueType::INTEGER, "", nullptr, "GPUs the job runs on", sim::at_least(1)},
          KeyDef{"step_time_s", ValueType::NUMBER, "s", nullptr, "measured time of one training step on healthy GPUs",
                 sim::positive(), {}, "required without model; derived with it"},
          KeyDef{"model_flops_per_step", ValueType::NUMBER, "FLOP", nullptr,
                 "model FLOPs of one step over all GPUs (6·N·tokens + attention), for MFU", sim::non_negative(), {},
                 "required without model; derived with it"},
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
          KeyDef{"priority", ValueType::INTEGER, "", 0,
                 "scheduling priority: higher is placed first and may preempt lower-priority jobs",
                 sim::between(-1000000, 1000000)},
          KeyDef{"arrival_h", ValueType::NUMBER, "h", 0.0, "when the job is submitted", sim::non_negative()},
          KeyDef{"work_h", ValueType::NUMBER, "h", 0.0,
                 "hours of training at full size the job needs; it ends (and frees its GPUs) when done; 0 = runs "
                 "to the end",
                 sim::non_negative()},
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
          KeyDef{"write_s", ValueType::NUMBER, "s", 30.0, "blocking time of one checkpoint write",
                 sim::non_negative()},
      }};
  return table;
}

std::vector<JobSpec> decode_jobs(const sim::Node& scenario) {
  std::vector<JobSpec> jobs;
  std::set<std::string> names;
  for (const sim::Node& j : scenario.objects("jobs", job_keys())) {
    JobSpec job;
    job.name = j.string("name");
    if (j.has("name")) {
      if (job.name.empty() ||
          job.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
              std::string::npos)
        j.problem("name", "must be non-empty and use only letters, digits, '_', '.' and '-'");
      else if (job.name == "cluster")
        j.problem("name", "\"cluster\" is reserved for cluster-wide rows of the outputs");
      else if (!names.insert(job.name).second)
        j.problem("name", "duplicate job name");
    }
    j.string("kind");
    job.gpus = static_cast<int>(j.integer("gpus"));
    if (!j.has("model")) {
      if (!j.has("step_time_s")) j.problem_here("missing step_time_s (measured step time of the job)");
      if (!j.has("model_flops_per_step"))
        j.problem_here("missing model_flops_per_step (model FLOPs of one step, for MFU)");
      if (j.has("parallelism")) j.problem("parallelism", "applies only to jobs with a model (/jobs/*/model)");
    } else {
      // One source of truth per number: with a model these are derived, never also given.
      for (const char* key : {"step_time_s", "model_flops_per_step", "tokens_per_step", "scaleout_comm_frac",
                              "nvlink_comm_frac"})
        if (j.has(key)) j.problem(key, "is derived from model; remove it (or remove model to use a measured value)");
    }
    if (auto v = j.optional_number("step_time_s")) job.step_time_s = *v;
    if (auto v = j.optional_number("model_flops_per_step")) job.model_flops_per_step = *v;
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

    job.priority = static_cast<int>(j.integer("priority"));
    job.arrival_h = j.number("arrival_h");
    job.work_h = j.number("work_h");
    job.min_gpus_frac = j.number("min_gpus_frac");

    const sim::Node c = j.object("checkpoint", checkpoint_keys());
    const auto interval = c.number_or_word("interval_s");
    job.checkpoint.auto_interval = !interval.number.has_value();
    job.checkpoint.interval_s = interval.number.value_or(0);
    job.checkpoint.write_s = c.number("write_s");
    if (job.checkpoint.auto_interval && c.has("write_s") && job.checkpoint.write_s == 0)
      c.problem("write_s", "must be > 0 with interval_s \"auto\": Daly's interval needs a write cost "
                           "(give interval_s to checkpoint at a fixed interval)");
    jobs.push_back(job);
  }
  return jobs;
}

} // namespace dcsim::workload
