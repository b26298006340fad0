// Failure modes: what fails, how often, how fast it is noticed and how long its repair takes.
//
// A mode strikes units of one scope: hardware (a GPU, a tray, a node, a rack) or, when the scenario
// has a fabric, fabric elements (a NIC port, a link (cable or switch-to-switch), a leaf, a spine, a
// core switch; every plane's elements form one population), or, when it has a cooling system, cooling
// elements (a rack branch, a branch valve, a CDU pump, a CDU loop, the facility water: see
// cooling/spec.hpp for what each does), or an NVL72 rack's power shelves (the rack goes down while more
// than power_shelves − power_shelves_needed of its shelves are down at once). Cooling modes without
// detect_s are detected after Racky's /cooling/racky_detect_s; cooling elements fail stop and are
// repaired by RLCC workflows with the crews of /cooling/crews (no repair_pipeline, no repair_crew).
// Its rate is given by exactly one of three keys, converted to a rate per unit λ (per hour); fabric,
// cooling and power units take mtbf_h only:
//   mtbf_h              λ = 1 / mtbf_h
//   rate_per_gpu_day    λ = rate · (GPUs in the unit) / 24
//   rate_per_node_day   λ = rate · (GPUs in the unit / GPUs per node) / 24
// (so a node rate on scope gpu spreads that node's rate over its GPUs: each GPU fails at rate/8 for an
// 8-GPU node). An nvl72 compute tray is a node.
// Times to failure are exponential (weibull_shape = 1) or Weibull with shape k and the same mean:
// scale η = MTBF / Γ(1 + 1/k); a Weibull unit renews (as good as new) when its repair completes.
// At the start of a replica a Weibull fleet is either in steady state (`weibull_start` "stationary",
// the default: each unit's first failure is the residual life of a renewal process in equilibrium,
// U·L with L = η·G^(1/k), G ~ Gamma(1 + 1/k), U ~ Uniform(0, 1): a length-biased lifetime, uniformly
// cut) or brand new ("new": a fleet installed at t = 0, which concentrates infant mortality for k < 1).
// Repair times have mean repair_h and are fixed, exponential, or log-normal with ln-standard-deviation
// repair_sigma (μ = ln(repair_h) − σ²/2, so the mean is repair_h).
#pragma once

#include "models/cooling/spec.hpp"
#include "models/fabric/fabric_state.hpp"
#include "models/hardware/layout.hpp"
#include "sim/json_reader.hpp"
#include "sim/rng.hpp"
#include "sim/strong_id.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dcsim::failure {

/// Detection delay of a mode that gives no detect_s (s; cooling scopes take /cooling/racky_detect_s).
inline constexpr double DEFAULT_DETECT_S = 60.0;

enum class RateKey { MTBF_H, PER_GPU_DAY, PER_NODE_DAY };
enum class RepairDist { FIXED, EXPONENTIAL, LOGNORMAL };

/// How a failure shows itself (and so how it is detected), docs/architecture.md:
///   FAIL_STOP  the unit stops; passive telemetry notices it after detect_s
///   HANG       the unit stops answering: a job using it stalls until its collective timeout
///              (operations.collective_timeout_s), which is the detection
///   GRAY       the unit keeps working but slowly (gray_slowdown x): a straggler the synchronous job
///              waits for, caught by straggler detection after operations.straggler_detect_s (never
///              when straggler detection is off); the job is then stopped to replace it
///   LATENT     the unit is faulty but keeps working, unnoticed, until it fails for real (after an
///              exponential time of mean latent_fail_h) or an active health check finds it first
enum class FaultKind { FAIL_STOP, HANG, GRAY, LATENT };
std::string_view fault_kind_name(FaultKind kind);

/// A failure domain (what a mode's units are), named as it registered itself: each domain is one file
/// under failure/domains/ implementing FailureDomain and declaring its scope words (failure/domain_registry.hpp),
/// so a new domain needs no change here. The domains other parts ask about by name are named below.
class Domain {
public:
  constexpr explicit Domain(std::string_view name) : name_(name) {}
  constexpr std::string_view name() const { return name_; }
  friend constexpr bool operator==(Domain a, Domain b) { // the same constant: no text compared
    return (a.name_.data() == b.name_.data() && a.name_.size() == b.name_.size()) || a.name_ == b.name_;
  }

  static const Domain HARDWARE, FABRIC, COOLING, POWER, STORAGE;

private:
  std::string_view name_;
};
inline constexpr Domain Domain::HARDWARE{"hardware"};
inline constexpr Domain Domain::FABRIC{"fabric"};
inline constexpr Domain Domain::COOLING{"cooling"};
inline constexpr Domain Domain::POWER{"power"};
inline constexpr Domain Domain::STORAGE{"storage"};

/// Units of the power domain.
enum class PowerUnit { SHELF };

/// How much of the machine a failure takes with it: what copies of data kept on its hosts it loses
/// (storage/checkpoint_plan.hpp). Each scope word states its own (failure/domain_registry.hpp).
enum class Reach { NOTHING, HOST, TRAY, RACK, MANY_RACKS };

/// A domain's kind of unit (hardware::Scope, fabric::ElementKind, cooling::CoolingElement, PowerUnit, ...:
/// each domain its own enum) as the failure modes and the domains' scope words carry it: a strong type, so
/// a kind is never taken for a unit's index or a count; unit_kind_of(e) makes one from a domain's enum.
using UnitKind = sim::StrongId<struct UnitKindTag>;
template <class Kind> constexpr UnitKind unit_kind_of(Kind kind) { return UnitKind{static_cast<int>(kind)}; }

struct FailureModeSpec {
  std::string name;
  std::string scope_name;          ///< as written: "gpu", "leaf", ...
  Domain domain = Domain::HARDWARE;
  UnitKind unit_kind{0};           ///< the domain's kind of unit (see ScopeWord, failure/domain_registry.hpp)
  RateKey rate_key = RateKey::MTBF_H;
  double rate_value = 0; ///< value of the rate key, in its own unit
  double weibull_shape = 1.0;
  bool weibull_new = false; ///< true: every unit is new at t = 0; false: the fleet is in steady state
  double detect_s = DEFAULT_DETECT_S;
  bool detect_given = true; ///< false: detect_s is the default (cooling modes then take Racky's delay)
  double repair_h = 4;
  RepairDist repair_dist = RepairDist::FIXED;
  double repair_sigma = 0;
  FaultKind kind = FaultKind::FAIL_STOP;
  double gray_slowdown = 2.0;       ///< GRAY: how many times slower the unit runs
  double latent_fail_h = 168;       ///< LATENT: mean time until the fault becomes a fail-stop failure
  bool repair_pipeline = false;     ///< repairs go through /operations/repair_pipeline, not repair_h
  bool repair_crew = true;          ///< a repair holds a crew (false: the unit comes back on its own)
  double lemon_frac = 0;            ///< share of units that are lemons
  double lemon_factor = 1;          ///< a lemon fails this many times as often
  double predicted_frac = 0;        ///< share of failures the RAS engine predicts
  double lead_time_h = 2;           ///< how long before the failure a prediction comes
  double nvlink_degraded_frac = 0;  ///< >0: the rack's NVLink keeps this share instead of going down
  double storage_bandwidth_frac = 0; ///< object_store: >0 the store keeps this share of its bandwidth (degraded)

  /// Whether a failure takes the unit's GPUs down at once (fail-stop or hang of hardware, not an
  /// NVLink degradation).
  bool takes_down() const {
    return on_hardware() && (kind == FaultKind::FAIL_STOP || kind == FaultKind::HANG) && nvlink_degraded_frac == 0;
  }

  /// Failure rate of one good unit of this mode's scope, per hour (λ).
  double unit_rate_per_h(const hardware::Layout& layout) const;
  /// Mean failure rate of a unit of the fleet, lemons included, per hour:
  ///   λ̄ = λ · (1 − lemon_frac + lemon_frac · lemon_factor)
  /// (what a job should expect of units it is placed on without knowing which are lemons).
  double mean_unit_rate_per_h(const hardware::Layout& layout) const {
    return unit_rate_per_h(layout) * (1.0 + lemon_frac * (lemon_factor - 1.0));
  }
  /// Whether the mode strikes GPUs' hardware (a unit is then a range of GPUs).
  bool on_hardware() const { return domain == Domain::HARDWARE; }
  bool on_fabric() const { return domain == Domain::FABRIC; }
  bool on_cooling() const { return domain == Domain::COOLING; }
  /// The unit kind of a mode of the matching domain (std::logic_error otherwise).
  hardware::Scope scope() const;
  fabric::ElementKind element() const;
  cooling::CoolingElement cooling_element() const;
  PowerUnit power_unit() const;
  /// Draws one repair duration in hours.
  double draw_repair_h(sim::Rng& rng) const;
};

/// Whether failures keep striking a job's GPUs while the job recovers (`/failures/clock`).
/// ALWAYS: every unit fails at its rate whatever its job does (a failure during detection extends it, one
/// during the restart interrupts the restart). PAUSED_DURING_RECOVERY: a strike of a hardware mode (gpu,
/// tray, node, rack) on a unit whose held GPUs are all held by training jobs that are recovering (detecting,
/// waiting for replacements, restarting; at least one GPU held; idle and spare GPUs of the unit do not
/// count) is discarded: the unit is not struck, no failure is counted. For
/// exponential lifetimes this is exactly pausing those GPUs' failure clocks (memoryless: the discarded
/// Poisson points are the ones a paused clock would not have produced), as AIReSim and renewal models do.
/// For a Weibull mode the discarded unit's clock restarts at the discarded date (a new lifetime is drawn,
/// as after a repair): not a pause of its age. With shape > 1 (wear-out) that makes it fail later than a
/// paused clock would, with shape < 1 (infant mortality) sooner. Units with no GPU held, or with a GPU of a
/// service or of a job that is not recovering, and fabric, cooling and power shelf modes keep failing.
enum class FailureClock { ALWAYS, PAUSED_DURING_RECOVERY };

struct FailuresSpec {
  std::vector<FailureModeSpec> modes;
  FailureClock clock = FailureClock::ALWAYS;
};

const sim::KeyTable& failures_keys();
const sim::KeyTable& failure_mode_keys();

/// Decodes `/failures`; `rack_kind` decides which hardware scopes exist, `has_fabric` whether fabric
/// scopes do, `has_cooling` whether cooling scopes do, `has_object_store` whether object_store does.
FailuresSpec decode_failures(const sim::Node& failures, hardware::RackKind rack_kind, bool has_fabric,
                             bool has_cooling = false, bool has_object_store = false);

} // namespace dcsim::failure
