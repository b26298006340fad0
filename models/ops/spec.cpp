#include "models/ops/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dcsim::ops {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

// flat table: the operations key table, one entry per key.
const KeyTable& operations_keys() {
  static const KeyTable table{
      "operations", "/operations", "recovery, spares, repair crews and planned interruptions",
      {
          KeyDef{"restart_s", ValueType::NUMBER_OR_STRING, "s", 600.0,
                 "from a healthy allocation to training again: reschedule, initialisation, checkpoint load; "
                 "\"auto\": the sum of reschedule_s, init_s, init_s_per_gpu_doubling x log2(GPUs) and the "
                 "checkpoint's load from its tiers (needs checkpoint tiers on every training job)",
                 sim::non_negative(), {"auto"}},
          KeyDef{"reschedule_s", ValueType::NUMBER, "s", 60.0,
                 "restart_s \"auto\": requeue and host selection (estimate: a Slurm requeue, SUNK placement)",
                 sim::non_negative()},
          KeyDef{"init_s", ValueType::NUMBER, "s", 30.0,
                 "restart_s \"auto\": process start, CUDA contexts, model build (estimate)", sim::non_negative()},
          KeyDef{"init_s_per_gpu_doubling", ValueType::NUMBER, "s", 20.0,
                 "restart_s \"auto\": communicator set-up per doubling of the job's GPUs (estimate: ~340 s at "
                 "131,072 GPUs in all; ByteRobust cut a 2,048-GPU start-up from 1,047 s to under 5 s with warm "
                 "standbys)", sim::non_negative()},
          KeyDef{"standby_join_s", ValueType::NUMBER, "s", nullptr,
                 "restart_s \"auto\" with warm standbys (spare ranks kept initialised in the job's process "
                 "groups): a restart after a failure initialises in this time instead of init_s + "
                 "init_s_per_gpu_doubling x log2(GPUs) (ByteRobust: under 5 s); the first launch and restarts "
                 "after planned stops initialise in full", sim::non_negative(), {}, "none: no warm standbys"},
          KeyDef{"spare_racks", ValueType::INTEGER, "", 0,
                 "nvl72 only: whole racks held idle to replace a job's rack", hardware::gpu_count(0)},
          KeyDef{"spare_nodes", ValueType::INTEGER, "", 0,
                 "hgx only: whole servers held idle to replace a job's server", hardware::gpu_count(0)},
          KeyDef{"repair_crews", ValueType::INTEGER, "", 0,
                 "repairs that can run at once (others queue in detection order); 0 = unlimited",
                 sim::non_negative()},
          KeyDef{"planned_interval_h", ValueType::NUMBER, "h", 0.0,
                 "every job is stopped for planned work once per interval, at a checkpoint; 0 = never",
                 sim::non_negative()},
          KeyDef{"planned_downtime_s", ValueType::NUMBER, "s", 0.0,
                 "length of a planned stop, followed by restart_s (with planned_interval_h 0 there is no planned stop, "
                 "whatever this says: a site may keep its usual downtime and turn the stops off)",
                 sim::non_negative()},
          KeyDef{"collective_timeout_s", ValueType::NUMBER, "s", 600.0,
                 "hang faults: a job using the hung unit stalls until its collectives time out (the detection)",
                 sim::positive()},
          KeyDef{"straggler_detection", ValueType::BOOLEAN, "", true,
                 "gray faults (slow units) are singled out by straggler detection; false: never"},
          KeyDef{"straggler_detect_s", ValueType::NUMBER, "s", 300.0, "time straggler detection takes",
                 sim::non_negative()},
          KeyDef{"health_check_interval_h", ValueType::NUMBER, "h", 0.0,
                 "active health checks sweep every free unit once per interval and find latent faults; every "
                 "restart also checks the job's GPUs first; 0 = no active checks",
                 sim::non_negative()},
          KeyDef{"health_check_duration_s", ValueType::NUMBER, "s", 300.0,
                 "one health check (added to each restart when checks are on)", sim::non_negative()},
          KeyDef{"repair_pipeline", ValueType::ARRAY, "", Json::array(),
                 "remediation stages for modes with repair_pipeline (see /operations/repair_pipeline/*)"},
          KeyDef{"escape_refail_h", ValueType::NUMBER, "h", 24.0,
                 "a repair that returned a unit still faulty: mean time until it fails again", sim::positive()},
          KeyDef{"lemon_retire_failures", ValueType::INTEGER, "", 0,
                 "lemon detection: retire a unit after this many failures within lemon_window_h; 0 = never",
                 sim::non_negative()},
          KeyDef{"lemon_window_h", ValueType::NUMBER, "h", 720.0, "lemon detection window", sim::positive()},
          KeyDef{"lemon_fix_frac", ValueType::NUMBER, "", 0.5, "chance that a successful repair makes a lemon good",
                 sim::fraction()},
          KeyDef{"retire_replace_h", ValueType::NUMBER, "h", 72.0,
                 "a retired unit is replaced by a new, good one after this", sim::positive()},
          KeyDef{"warm_swap_s", ValueType::NUMBER, "s", 0.0,
                 "extra restart time when a job's share moves to a spare or idle domain", sim::non_negative()},
          KeyDef{"cold_spare_racks", ValueType::INTEGER, "", 0,
                 "nvl72 only: racks kept powered off, brought into service after cold_swap_h when no warm spare "
                 "is left",
                 hardware::gpu_count(0)},
          KeyDef{"cold_spare_nodes", ValueType::INTEGER, "", 0, "hgx only: servers kept as cold spares",
                 hardware::gpu_count(0)},
          KeyDef{"placement", ValueType::STRING, "", "first_fit",
                 "which free NVLink domains a job takes: first_fit (lowest index; the behaviour before this "
                 "key), pack (topology-aware best fit: one rail group of leaves, else one pod, else fewest "
                 "groups), spread (uniformly random free domains, seeded stream placement/spread); see "
                 "models/sched/placement_policy.hpp",
                 {}, {"first_fit", "pack", "spread"}},
          KeyDef{"cold_swap_h", ValueType::NUMBER, "h", 24.0, "time to bring a cold spare into service",
                 sim::positive()},
      }};
  return table;
}

const KeyTable& repair_stage_keys() {
  static const KeyTable table{
      "operations", "/operations/repair_pipeline/*", "one remediation stage; a failed stage escalates to the next",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr, "stage name (triage, reset, tray_swap, rack_repair, rma...)"},
          KeyDef{"duration_h", ValueType::NUMBER, "h", nullptr, "mean duration of the stage", sim::non_negative()},
          KeyDef{"dist", ValueType::STRING, "", "fixed", "distribution of the duration", {},
                 {"fixed", "exponential", "lognormal"}},
          KeyDef{"sigma", ValueType::NUMBER, "", nullptr, "lognormal only: standard deviation of ln(duration)",
                 sim::positive(), {}, "required with dist lognormal"},
          KeyDef{"success_frac", ValueType::NUMBER, "", 1.0,
                 "chance the stage repairs the unit; the last stage must be 1", sim::fraction()},
          KeyDef{"escape_frac", ValueType::NUMBER, "", 0.0,
                 "chance a successful stage returns the unit still faulty, unknowingly", sim::fraction()},
          KeyDef{"crew", ValueType::BOOLEAN, "", true, "the stage needs one of the repair crews"},
          KeyDef{"drain_rack", ValueType::BOOLEAN, "", false,
                 "the unit's rack is drained during the stage (jobs move off at their next checkpoint)"},
      }};
  return table;
}

double pipeline_mean_h(const std::vector<RepairStage>& stages) {
  double reach = 1.0, mean = 0.0;
  for (const auto& st : stages) {
    mean += reach * st.duration_h;
    reach *= 1.0 - st.success_frac;
  }
  return mean;
}

double OperationsSpec::restart_init_s(int gpus) const {
  return init_s + init_s_per_gpu_doubling * std::log2(std::max(1, gpus));
}

OperationsSpec decode_operations(const sim::Node& n, hardware::RackKind rack_kind) {
  OperationsSpec spec;
  const auto restart = n.number_or_word("restart_s");
  spec.restart_auto = !restart.number.has_value();
  spec.reschedule_s = n.number("reschedule_s");
  spec.init_s = n.number("init_s");
  spec.init_s_per_gpu_doubling = n.number("init_s_per_gpu_doubling");
  spec.restart_s = restart.number.value_or(spec.reschedule_s + spec.init_s);
  spec.standby_join_s = n.optional_number("standby_join_s").value_or(-1);
  if (!spec.restart_auto)
    for (const char* part : {"reschedule_s", "init_s", "init_s_per_gpu_doubling", "standby_join_s"})
      if (n.has(part)) n.problem(part, "is a part of restart_s \"auto\" (restart_s is a number here)");
  spec.spare_racks = n.int32("spare_racks");
  spec.spare_nodes = n.int32("spare_nodes");
  spec.repair_crews = n.int32("repair_crews");
  spec.planned_interval_h = n.number("planned_interval_h");
  spec.planned_downtime_s = n.number("planned_downtime_s");
  spec.collective_timeout_s = n.number("collective_timeout_s");
  spec.straggler_detection = n.boolean("straggler_detection");
  spec.straggler_detect_s = n.number("straggler_detect_s");
  spec.health_check_interval_h = n.number("health_check_interval_h");
  spec.health_check_duration_s = n.number("health_check_duration_s");
  const auto stages = n.objects("repair_pipeline", repair_stage_keys());
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const sim::Node& st = stages[i];
    RepairStage stage;
    stage.name = st.string("name");
    if (st.has("name"))
      if (std::string problem = sim::name_problem(stage.name); !problem.empty()) st.problem("name", problem);
    stage.duration_h = st.number("duration_h");
    const std::string dist = st.string("dist");
    stage.dist = dist == "exponential" ? failure::RepairDist::EXPONENTIAL
                 : dist == "lognormal" ? failure::RepairDist::LOGNORMAL
                                       : failure::RepairDist::FIXED;
    if (auto sigma = st.optional_number("sigma")) stage.sigma = *sigma;
    if (stage.dist == failure::RepairDist::LOGNORMAL && !st.has("sigma")) st.problem_here("dist lognormal needs sigma");
    if (stage.dist != failure::RepairDist::LOGNORMAL && st.has("sigma"))
      st.problem("sigma", "applies only to dist \"lognormal\"");
    stage.success_frac = st.number("success_frac");
    stage.escape_frac = st.number("escape_frac");
    stage.crew = st.boolean("crew");
    stage.drain_rack = st.boolean("drain_rack");
    if (i + 1 == stages.size() && stage.success_frac != 1.0)
      st.problem("success_frac", "must be 1 in the last stage: a unit no stage repairs would stay down forever");
    spec.repair_pipeline.push_back(stage);
  }
  spec.escape_refail_h = n.number("escape_refail_h");
  spec.lemon_retire_failures = n.int32("lemon_retire_failures");
  spec.lemon_window_h = n.number("lemon_window_h");
  spec.lemon_fix_frac = n.number("lemon_fix_frac");
  spec.retire_replace_h = n.number("retire_replace_h");
  spec.warm_swap_s = n.number("warm_swap_s");
  spec.cold_spare_racks = n.int32("cold_spare_racks");
  spec.cold_spare_nodes = n.int32("cold_spare_nodes");
  spec.cold_swap_h = n.number("cold_swap_h");
  const std::string placement = n.string("placement");
  spec.placement = placement == "pack" ? Placement::PACK : placement == "spread" ? Placement::SPREAD : Placement::FIRST_FIT;
  if (rack_kind == hardware::RackKind::NVL72 && n.has("cold_spare_nodes"))
    n.problem("cold_spare_nodes", "applies only to racks of kind \"hgx\"; nvl72 designs use cold_spare_racks");
  if (rack_kind == hardware::RackKind::HGX && n.has("cold_spare_racks"))
    n.problem("cold_spare_racks", "applies only to racks of kind \"nvl72\"; hgx designs use cold_spare_nodes");
  if (rack_kind == hardware::RackKind::NVL72 && n.has("spare_nodes"))
    n.problem("spare_nodes", "applies only to racks of kind \"hgx\"; nvl72 designs use spare_racks");
  if (rack_kind == hardware::RackKind::HGX && n.has("spare_racks"))
    n.problem("spare_racks", "applies only to racks of kind \"nvl72\"; hgx designs use spare_nodes");
  if (spec.planned_interval_h > 0 && spec.planned_interval_h * 3600.0 <= spec.planned_downtime_s + spec.restart_s)
    n.problem("planned_interval_h",
              fmt::format("must leave time to train: must exceed planned_downtime_s + restart_s = {} s",
                          spec.planned_downtime_s + spec.restart_s));
  return spec;
}

} // namespace dcsim::ops
