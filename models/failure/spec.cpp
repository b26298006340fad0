#include "models/failure/spec.hpp"

#include "models/failure/domain_registry.hpp"

#include "sim/units.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace dcsim::failure {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::Bounds;
using sim::ValueType;

namespace {
const char* RATE_NOTE = "give exactly one of mtbf_h, rate_per_gpu_day, rate_per_node_day";
}

std::string_view fault_kind_name(FaultKind kind) {
  switch (kind) {
  case FaultKind::FAIL_STOP: return "fail_stop";
  case FaultKind::HANG: return "hang";
  case FaultKind::GRAY: return "gray";
  case FaultKind::LATENT: return "latent";
  }
  return "?";
}

namespace {
void require_domain(const FailureModeSpec& mode, Domain domain) {
  if (mode.domain != domain)
    throw std::logic_error(fmt::format("failure mode {}: scope {} is not a {} unit", mode.name, mode.scope_name,
                                       domain.name()));
}
std::vector<std::string> scope_choices() {
  std::vector<std::string> words;
  for (const auto& w : scope_words())
    words.emplace_back(w.word);
  return words;
}
/// The scope key's meaning: each domain's part, in registry order.
std::string scope_meaning() {
  std::string meaning = "unit struck: ";
  for (const DomainEntry* e : failure_domain_entries())
    meaning += (e == failure_domain_entries().front() ? "" : "; ") + e->scope_help;
  return meaning;
}
} // namespace

hardware::Scope FailureModeSpec::scope() const {
  require_domain(*this, Domain::HARDWARE);
  return static_cast<hardware::Scope>(unit_kind.value());
}

fabric::ElementKind FailureModeSpec::element() const {
  require_domain(*this, Domain::FABRIC);
  return static_cast<fabric::ElementKind>(unit_kind.value());
}

cooling::CoolingElement FailureModeSpec::cooling_element() const {
  require_domain(*this, Domain::COOLING);
  return static_cast<cooling::CoolingElement>(unit_kind.value());
}

PowerUnit FailureModeSpec::power_unit() const {
  require_domain(*this, Domain::POWER);
  return static_cast<PowerUnit>(unit_kind.value());
}

const KeyTable& failures_keys() {
  static const KeyTable table{
      "failures", "/failures", "failure modes injected into the hardware",
      {KeyDef{"modes", ValueType::ARRAY, "", Json::array(), "failure modes (see /failures/modes/*)"},
       KeyDef{"clock", ValueType::STRING, "", "always",
              "always: failures keep striking a job's GPUs while it detects, waits and restarts; "
              "paused_during_recovery: a strike of a hardware mode on a unit whose held GPUs are all held by "
              "recovering jobs is discarded (pausing their clocks for exponential modes; a Weibull unit's "
              "clock restarts)",
              {}, {"always", "paused_during_recovery"}}}};
  return table;
}

const KeyTable& failure_mode_keys() {
  static const KeyTable table{
      "failures", "/failures/modes/*", "one failure mode: its scope, rate, detection and repair",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr,
                 "identifier used in events.csv and causes.csv (letters, digits, _ . -)"},
          KeyDef{"scope", ValueType::STRING, "", nullptr,
                 scope_meaning(),
                 {}, scope_choices()},
          KeyDef{"mtbf_h", ValueType::NUMBER, "h", nullptr, "mean time between failures of one unit",
                 sim::limited(sim::positive(), 1e12, "dcsim's limit on MTBFs (10^12 h)"), {}, RATE_NOTE},
          KeyDef{"rate_per_gpu_day", ValueType::NUMBER, "1/(GPU·day)", nullptr,
                 "failures per GPU per day; a unit fails at this rate times its GPUs", sim::positive(), {},
                 RATE_NOTE},
          KeyDef{"rate_per_node_day", ValueType::NUMBER, "1/(node·day)", nullptr,
                 "failures per node per day; a unit fails at this rate times its nodes (fractions for gpu "
                 "scope)",
                 sim::positive(), {}, RATE_NOTE},
          KeyDef{"weibull_shape", ValueType::NUMBER, "", 1.0,
                 "shape k of Weibull times to failure (1: exponential; <1 infant mortality; >1 wear-out)",
                 sim::positive()},
          KeyDef{"weibull_start", ValueType::STRING, "", "stationary",
                 "Weibull fleets at t = 0: stationary (in service for long, steady state) or new (installed at 0)",
                 {}, {"stationary", "new"}},
          // No constant default: absent means 60 s, but Racky's delay for cooling scopes.
          KeyDef{"detect_s", ValueType::NUMBER, "s", nullptr, "delay from failure to detection",
                 sim::non_negative(), {},
                 fmt::format("{} s; cooling scopes: /cooling/racky_detect_s", DEFAULT_DETECT_S)},
          KeyDef{"repair_h", ValueType::NUMBER, "h", 4.0,
                 "mean repair time once detected (0: nothing to replace, e.g. a software fault)",
                 sim::non_negative()},
          KeyDef{"repair_dist", ValueType::STRING, "", "fixed", "distribution of repair times",
                 {}, {"fixed", "exponential", "lognormal"}},
          KeyDef{"repair_sigma", ValueType::NUMBER, "", nullptr,
                 "lognormal only: standard deviation of ln(repair time)", sim::positive(), {},
                 "required with repair_dist lognormal"},
          KeyDef{"repair_pipeline", ValueType::BOOLEAN, "", false,
                 "repairs go through the stages of /operations/repair_pipeline instead of repair_h"},
          KeyDef{"repair_crew", ValueType::BOOLEAN, "", true,
                 "a repair holds one of /operations/repair_crews for repair_h (false: the unit comes back on its "
                 "own after repair_h, e.g. a link flap or a switch reboot, and never queues for a crew)"},
          KeyDef{"kind", ValueType::STRING, "", "fail_stop",
                 "how the fault shows: fail_stop (noticed after detect_s), hang (caught by the collective "
                 "timeout), gray (a slow straggler, caught by straggler detection), latent (unnoticed until "
                 "it fails or a health check finds it)",
                 {}, {"fail_stop", "hang", "gray", "latent"}},
          KeyDef{"gray_slowdown", ValueType::NUMBER, "", 2.0, "gray faults: how many times slower the unit runs",
                 Bounds{1.0, std::numeric_limits<double>::infinity(), true, false}},
          KeyDef{"latent_fail_h", ValueType::NUMBER, "h", 168.0,
                 "latent faults: mean time until the fault becomes a fail-stop failure if not found first",
                 sim::positive()},
          KeyDef{"lemon_frac", ValueType::NUMBER, "", 0.0, "share of units that are lemons (fail more often)",
                 sim::fraction()},
          KeyDef{"lemon_factor", ValueType::NUMBER, "", 1.0, "a lemon fails this many times as often as a good unit",
                 sim::at_least(1)},
          KeyDef{"predicted_frac", ValueType::NUMBER, "", 0.0,
                 "share of failures the RAS engine predicts lead_time_h ahead: the unit is drained at its job's "
                 "next checkpoint and repaired before it fails",
                 sim::fraction()},
          KeyDef{"lead_time_h", ValueType::NUMBER, "h", 2.0, "how far ahead a predicted failure is predicted",
                 sim::positive()},
          KeyDef{"nvlink_degraded_frac", ValueType::NUMBER, "", 0.0,
                 "nvl72 tray or rack faults of the NVLink switch trays: > 0 leaves the rack's NVLink domain "
                 "running at this share of its bandwidth (software-defined NVLink routing) until a planned "
                 "repair, instead of taking its GPUs down",
                 Bounds{0.0, 1.0, false, true}},
          KeyDef{"storage_bandwidth_frac", ValueType::NUMBER, "", 0.0,
                 "object_store faults: > 0 leaves the store this share of its bandwidth until repaired (a "
                 "degraded store: drains and restores through it slow down) instead of out of reach",
                 Bounds{0.0, 1.0, false, true}},
      }};
  return table;
}

double FailureModeSpec::unit_rate_per_h(const hardware::Layout& layout) const {
  if (!on_hardware()) return 1.0 / rate_value; // fabric, cooling and power units take mtbf_h only
  const double unit_gpus = layout.unit_gpus(scope());
  switch (rate_key) {
  case RateKey::MTBF_H: return 1.0 / rate_value;
  case RateKey::PER_GPU_DAY: return rate_value * unit_gpus / sim::H_PER_DAY;
  case RateKey::PER_NODE_DAY: return rate_value * unit_gpus / layout.gpus_per_node() / sim::H_PER_DAY;
  }
  return 0;
}

double FailureModeSpec::draw_repair_h(sim::Rng& rng) const {
  if (repair_h <= 0) return 0;
  switch (repair_dist) {
  case RepairDist::FIXED: return repair_h;
  case RepairDist::EXPONENTIAL: return rng.exponential(1.0 / repair_h);
  case RepairDist::LOGNORMAL:
    return rng.lognormal(std::log(repair_h) - repair_sigma * repair_sigma / 2.0, repair_sigma);
  }
  return repair_h;
}

namespace {

void decode_mode_name(const sim::Node& m, std::set<std::string>& names, FailureModeSpec& mode) {
  mode.name = m.string("name");
  if (m.has("name") && !mode.name.empty()) {
    if (mode.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
        std::string::npos)
      m.problem("name", "must use only letters, digits, '_', '.' and '-'");
    else if (mode.name.size() > sim::MAX_NAME_CHARS)
      m.problem("name", sim::name_problem(mode.name));
    else if (!names.insert(mode.name).second)
      m.problem("name", "duplicate failure mode name");
  } else if (m.has("name")) {
    m.problem("name", "must not be empty");
  }
}

void decode_mode_scope(const sim::Node& m, const ScopeContext& c, FailureModeSpec& mode) {
  const std::string scope = m.string("scope");
  mode.scope_name = scope;
  for (const auto& w : scope_words())
    if (scope == w.word) {
      mode.domain = w.domain;
      mode.unit_kind = w.unit_kind;
    }
  const std::string problem = domain_entry(mode.domain).unavailable(c, scope);
  if (!problem.empty()) m.problem("scope", problem);
}

void decode_mode_rate(const sim::Node& m, FailureModeSpec& mode) {
  int rate_keys = 0;
  const std::pair<const char*, RateKey> rate_table[] = {
      {"mtbf_h", RateKey::MTBF_H}, {"rate_per_gpu_day", RateKey::PER_GPU_DAY},
      {"rate_per_node_day", RateKey::PER_NODE_DAY}};
  for (const auto& [key, kind] : rate_table) {
    if (!m.has(key)) continue;
    if (++rate_keys == 2) m.problem(key, std::string(RATE_NOTE) + "; this mode has more than one");
    if (auto v = m.optional_number(key); v && rate_keys == 1) {
      mode.rate_key = kind;
      mode.rate_value = *v;
    }
  }
  if (rate_keys == 0) m.problem_here(std::string("missing failure rate: ") + RATE_NOTE);
  if (!mode.on_hardware() && rate_keys == 1 && !m.has("mtbf_h"))
    m.problem(m.has("rate_per_gpu_day") ? "rate_per_gpu_day" : "rate_per_node_day",
              std::string(mode.domain.name()) +
                  " elements take mtbf_h (mean time between failures of one element)");
}

/// Weibull ageing, detection and repair; returns repair_dist as written.
std::string decode_mode_repair(const sim::Node& m, FailureModeSpec& mode) {
  mode.weibull_shape = m.number("weibull_shape");
  mode.weibull_new = m.string("weibull_start") == "new";
  if (m.has("weibull_start") && mode.weibull_shape == 1.0)
    m.problem("weibull_start", "applies only to Weibull modes (weibull_shape != 1)");
  const auto detect_s = m.optional_number("detect_s");
  mode.detect_s = detect_s.value_or(DEFAULT_DETECT_S);
  mode.detect_given = detect_s.has_value();
  mode.repair_h = m.number("repair_h");
  const std::string dist = m.string("repair_dist");
  mode.repair_dist = dist == "exponential" ? RepairDist::EXPONENTIAL
                     : dist == "lognormal" ? RepairDist::LOGNORMAL
                                           : RepairDist::FIXED;
  if (auto sigma = m.optional_number("repair_sigma")) mode.repair_sigma = *sigma;
  mode.repair_pipeline = m.boolean("repair_pipeline");
  mode.repair_crew = m.boolean("repair_crew");
  if (mode.repair_pipeline)
    for (const char* key : {"repair_h", "repair_dist", "repair_sigma"})
      if (m.has(key)) m.problem(key, "has no effect with repair_pipeline: the pipeline's stages set repair times");
  if (mode.repair_pipeline && m.has("repair_crew"))
    m.problem("repair_crew", "has no effect with repair_pipeline: each stage of /operations/repair_pipeline says "
                             "whether it needs a crew");
  return dist;
}

/// The fault kind and what each domain allows of it.
void decode_mode_kind(const sim::Node& m, FailureModeSpec& mode) {
  const std::string kind = m.string("kind");
  mode.kind = kind == "hang"     ? FaultKind::HANG
              : kind == "gray"   ? FaultKind::GRAY
              : kind == "latent" ? FaultKind::LATENT
                                 : FaultKind::FAIL_STOP;
  mode.gray_slowdown = m.number("gray_slowdown");
  mode.latent_fail_h = m.number("latent_fail_h");
  if (m.has("gray_slowdown") && mode.kind != FaultKind::GRAY)
    m.problem("gray_slowdown", "applies only to kind \"gray\"");
  if (m.has("latent_fail_h") && mode.kind != FaultKind::LATENT)
    m.problem("latent_fail_h", "applies only to kind \"latent\"");
  domain_entry(mode.domain).check(m, mode); // what the mode's domain allows of it
}

/// Lemons, predictions, NVLink and storage degradation, the repair distribution's parameters.
void decode_mode_extras(const sim::Node& m, hardware::RackKind rack_kind, const std::string& dist,
                        FailureModeSpec& mode) {
  const std::string& scope = mode.scope_name;
  mode.lemon_frac = m.number("lemon_frac");
  mode.lemon_factor = m.number("lemon_factor");
  if ((mode.lemon_frac > 0) != (mode.lemon_factor > 1))
    m.problem_here("lemons need both lemon_frac > 0 and lemon_factor > 1");
  mode.predicted_frac = m.number("predicted_frac");
  mode.lead_time_h = m.number("lead_time_h");
  if (mode.predicted_frac > 0 && !mode.on_hardware())
    m.problem("predicted_frac", fmt::format("applies only to hardware scopes (gpu, tray, node, rack); {} is a {} unit",
                                            scope, mode.domain.name()));
  if (m.has("lead_time_h") && mode.predicted_frac == 0)
    m.problem("lead_time_h", "has no effect without predicted_frac > 0");
  mode.nvlink_degraded_frac = m.number("nvlink_degraded_frac");
  if (mode.nvlink_degraded_frac > 0) {
    if (rack_kind != hardware::RackKind::NVL72 || (scope != "tray" && scope != "rack"))
      m.problem("nvlink_degraded_frac", "applies only to nvl72 racks' tray or rack scope (NVLink switch trays)");
    if (mode.kind != FaultKind::FAIL_STOP)
      m.problem("nvlink_degraded_frac", "applies only to kind \"fail_stop\"");
  }
  mode.storage_bandwidth_frac = m.number("storage_bandwidth_frac");
  if (m.has("storage_bandwidth_frac") && mode.domain != Domain::STORAGE)
    m.problem("storage_bandwidth_frac", "applies only to scope object_store");
  if (mode.repair_dist == RepairDist::LOGNORMAL && !m.has("repair_sigma"))
    m.problem_here("repair_dist lognormal needs repair_sigma");
  if (mode.repair_dist != RepairDist::LOGNORMAL && m.has("repair_sigma"))
    m.problem("repair_sigma", fmt::format("applies only to repair_dist \"lognormal\" (repair_dist is \"{}\")", dist));
}

} // namespace

FailuresSpec decode_failures(const sim::Node& failures, hardware::RackKind rack_kind, bool has_fabric,
                             bool has_cooling, bool has_object_store) {
  FailuresSpec spec;
  if (failures.string("clock") == "paused_during_recovery") spec.clock = FailureClock::PAUSED_DURING_RECOVERY;
  const ScopeContext context{rack_kind, has_fabric, has_cooling, has_object_store};
  std::set<std::string> names;
  for (const sim::Node& m : failures.objects("modes", failure_mode_keys())) {
    FailureModeSpec mode;
    decode_mode_name(m, names, mode);
    decode_mode_scope(m, context, mode);
    decode_mode_rate(m, mode);
    const std::string dist = decode_mode_repair(m, mode);
    decode_mode_kind(m, mode);
    decode_mode_extras(m, rack_kind, dist, mode);
    spec.modes.push_back(mode);
  }
  return spec;
}

} // namespace dcsim::failure
