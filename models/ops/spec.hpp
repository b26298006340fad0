// Operations: how the cluster is run around failures — restarts, spares, repair crews, planned stops.
#pragma once

#include "models/failure/spec.hpp"
#include "models/hardware/spec.hpp"
#include "sim/json_reader.hpp"

#include <string>
#include <vector>

namespace dcsim::ops {

/// In which order a job takes free NVLink domains (models/sched/placement_policy.hpp).
enum class Placement { FIRST_FIT, PACK, SPREAD };

/// One stage of the remediation pipeline (issue 6): automated triage, reset/reboot, tray swap,
/// rack-level repair with the rack drained, vendor RMA... A repair enters at the first stage; a stage
/// that fails escalates to the next. A stage that succeeds may still return the unit faulty without
/// knowing it (escape_frac): it fails again after an exponential time of mean escape_refail_h.
struct RepairStage {
  std::string name;
  double duration_h = 1;
  failure::RepairDist dist = failure::RepairDist::FIXED;
  double sigma = 0;
  double success_frac = 1;
  double escape_frac = 0;
  bool crew = true;        ///< needs one of the repair crews
  bool drain_rack = false; ///< the whole rack is drained (its GPUs out of service) during the stage
};

struct OperationsSpec {
  double restart_s = 600;        ///< healthy allocation -> training again (reschedule, init, checkpoint load)
  /// restart_s "auto": a restart is its parts, reschedule_s + init_s + init_s_per_gpu_doubling·log2(G) +
  /// the checkpoint's load from its nearest surviving tier (storage/checkpoint_plan.hpp); restart_s then
  /// holds reschedule_s + init_s (for the checks that need a lower bound).
  bool restart_auto = false;
  double reschedule_s = 60;            ///< requeue, host selection (restart_s "auto")
  double init_s = 30;                  ///< processes, CUDA contexts, model build (restart_s "auto")
  double init_s_per_gpu_doubling = 20; ///< communicator set-up growing with the job (restart_s "auto")
  /// restart_s "auto" with warm standbys (pre-initialised spare ranks, ByteRobust): a restart after a
  /// failure initialises in standby_join_s instead; < 0: no standbys.
  double standby_join_s = -1;
  /// One restart's parts for a job of `gpus` GPUs (restart_auto): reschedule, initialisation.
  double restart_init_s(int gpus) const;
  int spare_racks = 0;           ///< nvl72: whole racks held idle as replacements
  int spare_nodes = 0;           ///< hgx: whole servers held idle as replacements
  int repair_crews = 0;          ///< concurrent repairs; 0 = unlimited
  double planned_interval_h = 0; ///< one planned interruption of every job per interval; 0 = none
  double planned_downtime_s = 0; ///< length of a planned interruption (before the restart)

  // Detection (issue 6).
  double collective_timeout_s = 600; ///< a hang is caught when a collective times out
  bool straggler_detection = true;   ///< gray faults are caught at all
  double straggler_detect_s = 300;   ///< time to single out a straggler
  double health_check_interval_h = 0; ///< active health checks of free units; 0 = none
  double health_check_duration_s = 300; ///< one check; also added to every restart's pre-flight check

  // Remediation.
  std::vector<RepairStage> repair_pipeline;
  double escape_refail_h = 24;    ///< a repair that returned the unit faulty: mean time to fail again
  int lemon_retire_failures = 0;  ///< retire a unit after this many failures in lemon_window_h; 0 = never
  double lemon_window_h = 720;
  double lemon_fix_frac = 0.5;    ///< a successful repair turns a lemon into a good unit
  double retire_replace_h = 72;   ///< a retired unit is replaced by a new (good) one after this

  // Spares.
  double warm_swap_s = 0;         ///< extra restart time when a job's share moves to another domain
  int cold_spare_racks = 0;       ///< nvl72: racks kept powered off, brought in after cold_swap_h
  int cold_spare_nodes = 0;       ///< hgx: the same for servers
  double cold_swap_h = 24;
  Placement placement = Placement::FIRST_FIT; ///< operations.placement

  /// Spare NVLink domains for this rack kind (racks for nvl72, servers for hgx).
  int spare_domains(hardware::RackKind kind) const {
    return kind == hardware::RackKind::NVL72 ? spare_racks : spare_nodes;
  }
  int cold_domains(hardware::RackKind kind) const {
    return kind == hardware::RackKind::NVL72 ? cold_spare_racks : cold_spare_nodes;
  }
};

const sim::KeyTable& operations_keys();
const sim::KeyTable& repair_stage_keys();
/// Expected duration of a repair through the pipeline: Σ over stages of P(reaching it) × mean duration,
/// P(reaching stage i) = Π over earlier stages of (1 − success_frac).
double pipeline_mean_h(const std::vector<RepairStage>& stages);
OperationsSpec decode_operations(const sim::Node& operations, hardware::RackKind rack_kind);

} // namespace dcsim::ops
