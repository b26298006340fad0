#include "models/scenario.hpp"

#include "models/hardware/layout.hpp"
#include "models/serving/spec.hpp"
#include "models/storage/checkpoint_plan.hpp"
#include "models/workload/job_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace dcsim {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

const KeyTable& scenario_keys() {
  static const KeyTable table{
      "scenario", "", "a candidate design and how it is operated",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr,
                 "scenario name used in outputs and as the default output folder out/<name> (letters, digits, _ . "
                 "-; at most 64 characters; not starting with '.')",
                 {}, {}, "the file name without .json (other characters replaced by _)"},
          KeyDef{"seed", ValueType::INTEGER, "", 1, "seed of every random stream", sim::between(0, 9.0e15)},
          KeyDef{"replicas", ValueType::INTEGER, "", 10, "independent histories simulated (Monte Carlo)",
                 sim::between(1, 100000)},
          KeyDef{"duration_h", ValueType::NUMBER, "h", 336.0,
                 "simulated time of each replica (with end_when jobs_done: the longest a replica runs)",
                 sim::positive()},
          KeyDef{"end_when", ValueType::STRING, "", "duration_h",
                 "duration_h: every replica runs duration_h; jobs_done: a replica ends when the last training job "
                 "with work_h completes (or at duration_h if that comes first), so nothing after it is counted",
                 {}, {"duration_h", "jobs_done"}},
          KeyDef{"hardware", ValueType::OBJECT, "", Json::object(), "GPU and rack hardware"},
          KeyDef{"cluster", ValueType::OBJECT, "", Json::object(), "how many racks (see /cluster: racks is required)"},
          KeyDef{"fabric", ValueType::OBJECT, "", nullptr, "scale-out fabric between NVLink domains", {}, {},
                 "none: racks are not joined by a modelled fabric"},
          KeyDef{"cooling", ValueType::OBJECT, "", nullptr, "liquid cooling: CDU loops, valves, thermal throttling",
                 {}, {}, "none: cooling is not modelled"},
          KeyDef{"power", ValueType::OBJECT, "", Json::object(), "GPU and rack power, budget and capping, grid events"},
          KeyDef{"failures", ValueType::OBJECT, "", Json::object(), "failure modes"},
          KeyDef{"operations", ValueType::OBJECT, "", Json::object(), "recovery, spares and repairs"},
          KeyDef{"rlcc", ValueType::OBJECT, "", Json::object(),
                 "rack lifecycle controller: workflow stages, planned maintenance waves"},
          KeyDef{"jobs", ValueType::ARRAY, "", Json::array(), "jobs, placed in order on the cluster"},
          KeyDef{"job_stream", ValueType::OBJECT, "", nullptr,
                 "jobs arriving over time from a generator or a trace, appended to jobs (see /job_stream)", {}, {},
                 "none"},
          KeyDef{"storage", ValueType::OBJECT, "", nullptr,
                 "checkpoint storage tiers: host memory, local NVMe, rack cache, object store (docs/recovery.md)",
                 {}, {}, "none: a checkpoint costs its job's write_s"},
          KeyDef{"output", ValueType::OBJECT, "", Json::object(), "what is recorded"},
          KeyDef{"cost", ValueType::OBJECT, "", nullptr,
                 "price catalogue: capex, opex and cost per useful GPU-hour and token in the outputs ({} takes "
                 "every sourced default; docs/cost.md)",
                 {}, {}, "none: no cost outputs"},
          KeyDef{"sweep", ValueType::OBJECT, "", Json::object(),
                 "keys varied by `dcsim sweep` (ignored by `dcsim run`)"},
      }};
  return table;
}

const KeyTable& output_keys() {
  static const KeyTable table{
      "output", "/output", "what a run records besides the summary",
      {
          KeyDef{"timeseries_interval_s", ValueType::NUMBER, "s", 3600.0,
                 "sampling interval of timeseries.csv; 0 = no time series", sim::non_negative()},
          KeyDef{"events", ValueType::BOOLEAN, "", true, "record events.csv (failures, repairs, checkpoints...)"},
      }};
  return table;
}

const KeyTable& sweep_keys() {
  static const KeyTable table{
      "sweep", "/sweep", "a parameter sweep: `dcsim sweep` runs the cartesian product of the varied keys",
      {
          KeyDef{"vary", ValueType::ARRAY, "", Json::array(),
                 "varied keys, the first one slowest in point order (see /sweep/vary/*)"},
          KeyDef{"zip", ValueType::ARRAY, "", Json::array(),
                 "keys varied together, each listing as many values (see /sweep/zip/*): point i of "
                 "the group takes every key's i-th value; the group is one axis of the product, after the vary "
                 "keys"},
      }};
  return table;
}

const KeyTable& sweep_axis_keys() {
  static const KeyTable table{
      "sweep", "/sweep/vary/*", "one varied key and its values",
      {
          KeyDef{"key", ValueType::STRING, "", nullptr,
                 "key path as in --set, '.' between keys and array indices (jobs.0.gpus)"},
          KeyDef{"values", ValueType::ARRAY, "", nullptr, "values the key takes, each any JSON value (at least one)"},
      }};
  return table;
}

namespace {

/// The elements of /sweep/zip: as /sweep/vary/* (a table of their own so the schema and the reference
/// docs describe them where they are).
const KeyTable& sweep_zip_axis_keys() {
  static const KeyTable table{"sweep", "/sweep/zip/*", "one of the keys varied together and its values",
                              sweep_axis_keys().keys};
  return table;
}

} // namespace

std::vector<const KeyTable*> scenario_key_tables() {
  return {&scenario_keys(),          &hardware::hardware_keys(),      &hardware::gpu_keys(),
          &hardware::rack_keys(),    &hardware::cluster_keys(),       &fabric::fabric_keys(),
          &cooling::cooling_keys(),  &cooling::throttle_point_keys(), &power::power_keys(),
          &power::grid_event_keys(), &failure::failures_keys(),       &failure::failure_mode_keys(),
          &ops::operations_keys(),   &ops::repair_stage_keys(),       &ops::rlcc_keys(),               &ops::wave_keys(),
          &workload::job_keys(),     &workload::model_keys(),         &workload::parallelism_keys(),
          &workload::checkpoint_keys(), &workload::recovery_keys(), &workload::job_stream_keys(), &serving::serving_keys(), &serving::disaggregation_keys(), &storage::storage_keys(), &storage::tier_keys(),
          &output_keys(),      &cost::cost_keys(),       &sweep_keys(),
          &sweep_axis_keys(),        &sweep_zip_axis_keys()};
}

double scale_out_gbps(const Scenario& scenario) {
  if (!scenario.fabric) return 0;
  return scenario.fabric->gpu_bw_gbps() * scenario.fabric->routing_efficiency_frac;
}

namespace {

void decode_end_when(const sim::Node& root, Scenario& s) {
  s.end_when_jobs_done = root.string("end_when") == "jobs_done";
  if (!s.end_when_jobs_done) return;
  const bool any = std::any_of(s.jobs.begin(), s.jobs.end(), [](const workload::JobSpec& j) {
    return j.kind == workload::JobKind::TRAINING && j.work_h > 0;
  });
  if (!any)
    root.problem("end_when", "jobs_done needs a training job with work_h > 0 (no job here ends by itself)");
}

/// The sweep block: "vary" axes, then "zip" axes (varied together, so each as long as the first).
void decode_sweep(const sim::Node& sweep, std::vector<SweepAxis>& axes) {
  std::string first_zip; // the first zipped axis's pointer
  std::size_t zip_count = 0;
  for (const bool zipped : {false, true}) {
    for (const sim::Node& axis : sweep.objects(zipped ? "zip" : "vary", zipped ? sweep_zip_axis_keys() : sweep_axis_keys())) {
      SweepAxis a;
      a.key = axis.string("key");
      a.zipped = zipped;
      if (axis.has("key") && a.key.empty()) axis.problem("key", "must not be empty");
      for (const auto& other : axes)
        if (!a.key.empty() && other.key == a.key) axis.problem("key", "is varied twice");
      if (const Json* values = axis.raw("values"); values && values->is_array()) {
        if (values->empty()) axis.problem("values", "must list at least one value");
        for (const auto& v : *values)
          a.values.push_back(v);
        if (zipped && first_zip.empty()) {
          first_zip = axis.pointer();
          zip_count = a.values.size();
        } else if (zipped && a.values.size() != zip_count) {
          axis.problem("values", fmt::format("lists {} values, but {}/values lists {} (zipped keys vary together: "
                                             "give each as many values)",
                                             a.values.size(), first_zip, zip_count));
        }
      } else if (values) {
        axis.problem("values", "must be an array");
      } else {
        axis.problems().add(axis.child_pointer("values"), "missing required key");
      }
      axes.push_back(std::move(a));
    }
  }
}

/// Jobs' checkpoint tiers against /storage and the failure modes; restart_s "auto" needs them.
void check_checkpoint_storage(const Json& document, const Scenario& s, const hardware::Layout& layout,
                              sim::Problems& problems) {
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const auto& job = s.jobs[i];
    if (job.kind != workload::JobKind::TRAINING) continue;
    const std::string at = fmt::format("/jobs/{}/checkpoint", i);
    const Json* checkpoint = document.at("jobs").at(i).contains("checkpoint") ? &document.at("jobs").at(i).at("checkpoint") : nullptr;
    auto got = [&](const char* key) { return checkpoint && checkpoint->contains(key) ? &checkpoint->at(key) : nullptr; };
    if (job.checkpoint.tiers.empty()) {
      if (s.operations.restart_auto)
        problems.add(at + "/tiers", "must list the checkpoint's tiers: operations.restart_s \"auto\" loads the "
                                    "checkpoint from them");
      continue;
    }
    if (!s.storage) {
      problems.add(at + "/tiers", "needs a /storage block defining the tiers", got("tiers"));
      continue;
    }
    try {
      const storage::CheckpointPlan plan = storage::plan_checkpoint(job, storage::checkpoint_bytes(job), *s.storage,
                                                                    s.failures.modes, storage::job_racks(layout, job.gpus));
      const double write_s = job.checkpoint.write_given ? job.checkpoint.write_s : plan.write_s;
      const double drain_s = plan.durable_s - plan.write_s;
      if (job.checkpoint.async && !job.checkpoint.auto_interval && job.checkpoint.interval_s + write_s < drain_s)
        problems.add(at + "/interval_s",
                     fmt::format("is shorter than the asynchronous drain: interval_s + the blocking write ({:.4g} s) "
                                 "must be >= {:.4g} s, the time a copy takes to reach the last tier",
                                 job.checkpoint.interval_s + write_s, drain_s),
                     got("interval_s"));
    } catch (const storage::PlanProblem& e) {
      problems.add(at + "/" + e.key, e.what(), got(e.key.c_str()));
    }
  }
}

/// The scenario's name: a path component (out/<name>), never "..", "/" or hidden.
std::string decode_name(const sim::Node& root, const std::string& default_name) {
  std::string chosen = sim::sanitised_name(default_name);
  if (auto name = root.optional_string("name")) {
    if (std::string problem = sim::name_problem(*name); !problem.empty())
      root.problem("name", problem);
    else if (name->front() == '.')
      root.problem("name", "must not start with '.'");
    else
      chosen = *name;
  }
  return chosen;
}

/// Failure modes that need what /operations gives (a repair pipeline) or an exponential mode (predictions).
void check_modes_against_operations(const Json& document, const Scenario& s, sim::Problems& problems) {
  for (std::size_t m = 0; m < s.failures.modes.size(); ++m) {
    const auto& mode = s.failures.modes[m];
    const auto& node = document.at("failures").at("modes").at(m);
    if (mode.repair_pipeline && s.operations.repair_pipeline.empty())
      problems.add(fmt::format("/failures/modes/{}/repair_pipeline", m),
                   "needs the stages of /operations/repair_pipeline (it is empty)", &node.at("repair_pipeline"));
    if (mode.predicted_frac > 0 && mode.weibull_shape != 1.0)
      problems.add(fmt::format("/failures/modes/{}/predicted_frac", m),
                   "predicted failures need an exponential mode (weibull_shape 1)", &node.at("predicted_frac"));
  }
}

/// The branch flow and the CDU's size follow from the rack's design power.
void size_cooling(Scenario& s, const sim::Node& cooling_node) {
  const double design_kw = power::rack_design_power_w(s.power, s.hardware) / 1000.0;
  if (!s.cooling->rack_flow_given) s.cooling->rack_flow_l_per_min = cooling::FLOW_L_PER_MIN_PER_KW * design_kw;
  const int per_loop = std::min(s.cooling->racks_per_loop, s.cluster.racks);
  if (per_loop * design_kw > s.cooling->cdu_capacity_kw * (1 + 1e-12))
    cooling_node.problem(cooling_node.has("racks_per_loop") ? "racks_per_loop" : "cdu_capacity_kw",
                         fmt::format("{} racks of {:.1f} kW (design power) exceed cdu_capacity_kw ({} kW): at most {} "
                                     "fit on one CDU",
                                     per_loop, design_kw, s.cooling->cdu_capacity_kw,
                                     static_cast<int>(s.cooling->cdu_capacity_kw / design_kw)));
}

/// Maintenance waves against the cluster and its cooling.
void check_waves(const Json& document, const Scenario& s, sim::Problems& problems) {
  for (std::size_t w = 0; w < s.rlcc.waves.size(); ++w) {
    const auto& wave = s.rlcc.waves[w];
    const Json& wave_json = document.at("rlcc").at("waves").at(w);
    if (wave.racks > s.cluster.racks)
      problems.add(fmt::format("/rlcc/waves/{}/racks", w),
                   fmt::format("must be <= the cluster's racks ({})", s.cluster.racks), &wave_json.at("racks"));
    if (wave.coolant && !s.cooling)
      problems.add(fmt::format("/rlcc/waves/{}/coolant", w), "needs a /cooling block", &wave_json.at("coolant"));
  }
}

/// Core switch modes need a 3-tier fabric.
void check_core_modes(const Json& document, const Scenario& s, sim::Problems& problems) {
  if (!s.fabric || s.fabric->tiers >= 3) return;
  for (std::size_t m = 0; m < s.failures.modes.size(); ++m)
    if (s.failures.modes[m].on_fabric() && s.failures.modes[m].element() == fabric::ElementKind::CORE)
      problems.add(fmt::format("/failures/modes/{}/scope", m),
                   fmt::format("core switches exist only in 3-tier fabrics (/fabric/tiers is {})", s.fabric->tiers),
                   &document.at("failures").at("modes").at(m).at("scope"));
}

/// Each job must fit alone outside the spares (together they may exceed the cluster: they queue); an
/// elastic job's size is whole domains; it arrives before the end.
void check_jobs_fit(const Json& document, const Scenario& s, const hardware::Layout& layout, int spare,
                    sim::Problems& problems) {
  const char* domain_word = s.hardware.rack.kind == hardware::RackKind::NVL72 ? "racks" : "servers";
  const int usable = layout.domain_usable_gpus();
  const int schedulable = layout.domains() - spare;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const int need = layout.domains_for(s.jobs[i].gpus);
    if (need > schedulable)
      problems.add(fmt::format("/jobs/{}/gpus", i),
                   fmt::format("needs {} {} of {} usable GPUs, but only {} of the cluster's {} are not spares", need,
                               domain_word, usable, schedulable, layout.domains()),
                   &document.at("jobs").at(i).at("gpus"));
    if (s.jobs[i].kind == workload::JobKind::TRAINING && s.jobs[i].min_gpus_frac < 1 && s.jobs[i].gpus % usable != 0)
      problems.add(fmt::format("/jobs/{}/gpus", i),
                   fmt::format("an elastic job (min_gpus_frac < 1) shrinks and grows by whole {}: gpus must be a "
                               "multiple of their {} usable GPUs",
                               domain_word, usable),
                   &document.at("jobs").at(i).at("gpus"));
    if (s.jobs[i].arrival_h >= s.duration_h)
      problems.add(fmt::format("/jobs/{}/arrival_h", i),
                   fmt::format("must be < duration_h ({} h): the job would never run", s.duration_h),
                   &document.at("jobs").at(i).at("arrival_h"));
  }
}

/// A measured job's FLOPs against its GPUs' peak: more than the peak is an inconsistent job, not a fast one.
void check_measured_mfu(const Json& document, const Scenario& s, sim::Problems& problems) {
  const double peak_flops = s.hardware.gpu.peak_tflops * 1e12;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const auto& job = s.jobs[i];
    if (job.kind != workload::JobKind::TRAINING || job.model || !(job.model_flops_per_step > 0) ||
        !(job.step_time_s > 0))
      continue; // a derived step, or no MFU (a reliability-only job)
    const double mfu = job.model_flops_per_step / (job.step_time_s * job.gpus * peak_flops);
    if (!(mfu <= 1))
      problems.add(fmt::format("/jobs/{}/model_flops_per_step", i),
                   fmt::format("gives an MFU of {:.4g} (model_flops_per_step / (step_time_s x gpus x {} TFLOP/s "
                               "peak)): must be <= 1",
                               mfu, s.hardware.gpu.peak_tflops),
                   &document.at("jobs").at(i).at("model_flops_per_step"));
  }
}

/// Model-derived jobs against the hardware (precision, NVLink domain, memory); services described by a
/// model get their capacity per GPU from the operating curve on this hardware.
void check_model_jobs(Scenario& s, sim::Problems& problems) {
  // Model-derived jobs against the hardware: precision, NVLink domain, memory.
  for (std::size_t i = 0; i < s.jobs.size(); ++i)
    if (s.jobs[i].model) workload::check_model_job(*s.jobs[i].model, static_cast<int>(i), s.hardware, problems);
  // Services described by a model: their capacity per GPU from the operating curve on this hardware.
  for (std::size_t i = 0; i < s.jobs.size(); ++i)
    if (s.jobs[i].serving) {
      // A disaggregated service splits its instances (its GPUs over an instance's) into the two pools.
      const int instances = s.jobs[i].gpus / std::max(1, s.jobs[i].serving->instance.gpus());
      const auto capacity = serving::serving_capacity(*s.jobs[i].serving, s.hardware, instances);
      if (!capacity.problem.empty())
        problems.add(fmt::format("/jobs/{}/serving", i), capacity.problem + " on " + s.hardware.gpu.model);
      s.jobs[i].tokens_per_s_per_gpu = capacity.output_tokens_per_s_per_gpu;
    }
}

} // namespace

namespace {
/// /storage, once /fabric is decoded (storage.network converged needs the shared fabric).
void decode_storage_area(const sim::Node& root, Scenario& s) {
  const sim::Node storage = root.object("storage", storage::storage_keys());
  s.storage = storage::decode_storage(storage);
  if (s.storage->converged && !(s.fabric && s.fabric->shared))
    storage.problem("network", s.fabric ? "converged needs the shared fabric (/fabric/phase_overlap is \"isolated\")"
                                        : "converged needs a /fabric to converge on");
}

std::optional<Scenario> decode_expanded(const Json& document, const std::string& default_name, sim::Problems& problems);
} // namespace

std::optional<Scenario> decode_scenario(const Json& document, const std::string& default_name,
                                        sim::Problems& problems) {
  if (!document.is_object() || !document.contains("job_stream")) return decode_expanded(document, default_name, problems);
  const std::size_t before = problems.size(); // a job stream: its jobs join /jobs (models/workload/job_stream.hpp)
  const std::optional<Json> expanded = workload::expand_job_stream(document, problems);
  if (!expanded || problems.size() != before) return std::nullopt;
  sim::Problems found;
  std::optional<Scenario> s = decode_expanded(*expanded, default_name, found);
  std::set<std::pair<std::string, std::string>> seen; // a template's problem once, not once per job
  for (const sim::Problem& p : found.list()) {
    const sim::Problem moved = workload::stream_problem(p, workload::first_stream_job(document), *expanded);
    if (moved.pointer == p.pointer || seen.emplace(moved.pointer, p.message).second) problems.add_raw(moved);
  }
  return problems.size() == before ? s : std::nullopt;
}

namespace {

std::optional<Scenario> decode_expanded(const Json& document, const std::string& default_name,
                                        sim::Problems& problems) {
  const sim::Node root(document, "", scenario_keys(), problems);
  if (!document.is_object()) return std::nullopt; // nothing else can be said
  Scenario s;
  s.name = decode_name(root, default_name);
  s.seed = static_cast<std::uint64_t>(root.integer("seed"));
  s.replicas = root.int32("replicas");
  s.duration_h = root.number("duration_h");
  s.hardware = hardware::decode_hardware(root.object("hardware", hardware::hardware_keys()));
  const sim::Node cluster = root.object("cluster", hardware::cluster_keys());
  s.cluster = hardware::decode_cluster(cluster);
  std::optional<sim::Node> fabric;
  if (root.has("fabric")) {
    fabric.emplace(root.object("fabric", fabric::fabric_keys()));
    s.fabric = fabric::decode_fabric(*fabric, s.hardware.gpu.nic_gbps);
  }
  std::optional<sim::Node> cooling_node;
  if (root.has("cooling")) {
    cooling_node.emplace(root.object("cooling", cooling::cooling_keys()));
    s.cooling = cooling::decode_cooling(*cooling_node);
  }
  s.power = power::decode_power(root.object("power", power::power_keys()), s.hardware);
  if (root.has("storage")) decode_storage_area(root, s);
  const bool object_store = s.storage && std::any_of(s.storage->tiers.begin(), s.storage->tiers.end(), [](const auto& t) {
                              return t.kind == storage::TierKind::OBJECT_STORE;
                            });
  s.failures = failure::decode_failures(root.object("failures", failure::failures_keys()), s.hardware.rack.kind,
                                        s.fabric.has_value(), s.cooling.has_value(), object_store);
  const sim::Node operations = root.object("operations", ops::operations_keys());
  s.operations = ops::decode_operations(operations, s.hardware.rack.kind);
  const sim::Node rlcc = root.object("rlcc", ops::rlcc_keys());
  s.rlcc = ops::decode_rlcc(rlcc);
  s.jobs = workload::decode_jobs(root);
  decode_end_when(root, s);
  const sim::Node output = root.object("output", output_keys());
  s.output.timeseries_interval_s = output.number("timeseries_interval_s");
  s.output.events = output.boolean("events");
  if (root.has("cost")) s.cost = cost::decode_cost(root.object("cost", cost::cost_keys()), s.hardware, s.operations);
  decode_sweep(root.object("sweep", sweep_keys()), s.sweep);
  if (s.cooling) {
    if (s.cooling->racky_interval_s < 0) s.cooling->racky_interval_s = s.output.timeseries_interval_s;
    for (auto& mode : s.failures.modes) // Racky is the detection path of cooling faults
      if (mode.on_cooling() && !mode.detect_given) mode.detect_s = s.cooling->racky_detect_s;
  }

  // Cross-area checks, once the areas themselves are sound.
  if (!problems.empty() || s.cluster.racks <= 0) return std::nullopt;
  const long long gpus = static_cast<long long>(s.cluster.racks) * s.hardware.rack.gpus_per_rack();
  if (gpus > MAX_GPUS) {
    cluster.problem("racks", fmt::format("gives {} GPUs, more than dcsim's limit of {}", gpus, MAX_GPUS));
    return std::nullopt;
  }
  const hardware::Layout layout(s.hardware, s.cluster);
  if (s.fabric) fabric::check_design(*s.fabric, layout, s.hardware.gpu.nic_gbps, *fabric);
  check_modes_against_operations(document, s, problems);
  if (s.cooling) size_cooling(s, *cooling_node);
  check_waves(document, s, problems);
  check_core_modes(document, s, problems);
  const bool nvl72 = s.hardware.rack.kind == hardware::RackKind::NVL72;
  const char* domain_word = nvl72 ? "racks" : "servers";
  const int spare = s.operations.spare_domains(s.hardware.rack.kind) + s.operations.cold_domains(s.hardware.rack.kind);
  const char* spare_key = nvl72 ? "spare_racks" : "spare_nodes";
  if (spare >= layout.domains()) {
    operations.problem(spare_key, fmt::format("must leave {} for jobs: warm and cold spares together must be < {} "
                                              "(the cluster's {})",
                                              domain_word, layout.domains(), domain_word));
    return std::nullopt;
  }
  check_jobs_fit(document, s, layout, spare, problems);
  check_measured_mfu(document, s, problems);
  check_model_jobs(s, problems);
  if (!problems.empty()) return std::nullopt;
  check_checkpoint_storage(document, s, layout, problems);
  if (!problems.empty()) return std::nullopt;
  return s;
}

} // namespace

} // namespace dcsim
