// Liquid cooling spec (`/cooling`): CDU loops, pumps, valves, coolant, supply temperature, GPU thermal
// throttling, Racky sensors. Absent: cooling is not modelled (no temperatures, no throttling, no cooling
// failure scopes).
//
// Topology (racks in index order, `racks_per_loop` per CDU loop; the last loop may serve fewer):
//
//   facility water ──▶ CDU (heat exchanger, `pumps` pumps) ──supply──┬─▶ valve ─▶ rack0000 ─┐
//        (trace, or a profile)      loop0000                         ├─▶ valve ─▶ rack0001 ─┤
//                                                                    └─▶ valve ─▶ rack0007 ─┴─return──▶ CDU
//
// `isolation` "rack": each branch has a programmable valve assembly (Valvey) that isolates one rack
// without disturbing its neighbours; "loop": no per-rack valves, isolating anything (a leak, a valve's
// service, coolant maintenance) shuts the whole loop.
//
// Supply temperature T_sup(t), piecewise constant so that the model stays event-driven:
//   profile:  T_sup = supply_c + A_d·cos(2π(h − daily_peak_h)/24) + A_s·cos(2π(d − seasonal_peak_day)/365)
//             (h hour of day, d day of year = start_day + t/24 h) evaluated at the middle of each step of
//             profile_step_s and held over the step;
//   trace:    T_sup = T_fw(t) + cdu_approach_k, T_fw the facility water temperature trace, each value held
//             until the next point (before the first point, the first value);
//   plus facility_excursion_k while a `facility` failure (facility water excursion) lasts.
// Flow: every branch has rack_flow_l_per_min at design (default 1.5 L/min per kW of the rack's design
// power, CONTEXT.md §2); a loop with k working pumps delivers min(1, k·pump_capacity_frac) of its design
// flow to every branch (N+1 redundancy: pumps = N + 1, pump_capacity_frac = 1/N); a CDU failure stops it;
// a valve fault leaves its branch valve_fault_flow_frac of its flow. Branch pressure drop scales with
// the square of the flow (turbulent flow): Δp = branch_pressure_drop_kpa · (V̇/V̇_design)².
// Thermal model and throttling: rack_thermal.hpp. Coolant properties: coolant.hpp.
#pragma once

#include "models/cooling/rack_thermal.hpp"
#include "sim/json_reader.hpp"

#include <functional>
#include <string>
#include <vector>

namespace dcsim::cooling {

enum class Isolation { RACK, LOOP };
std::string_view isolation_name(Isolation isolation);

/// Cooling elements that fail (failure mode scopes). Units: a branch and a valve per rack, `pumps` pumps
/// per loop (unit = loop·pumps + pump), a CDU per loop, one facility water supply.
///   branch    a leak in a rack's branch (hoses, manifold, cold plates): once detected the rack (isolation
///             rack) or the whole loop (isolation loop) is isolated and drained until repaired
///   valve     a branch valve fault: the branch keeps valve_fault_flow_frac of its flow until serviced;
///             the service drains the rack (or the loop) at a checkpoint first
///   pump      a CDU pump: the loop's flow drops to min(1, working·pump_capacity_frac), 0 without pumps
///   loop      a CDU failure: the loop's flow stops (every rack on it shuts down) until repaired
///   facility  a facility water excursion: supply + facility_excursion_k for repair_h
enum class CoolingElement { BRANCH, VALVE, PUMP, LOOP, FACILITY };
std::string_view cooling_element_name(CoolingElement element);

/// Which Racky gauges go into timeseries.csv besides the cluster totals.
enum class RackyGauges { CLUSTER, LOOP, RACK };

struct TracePoint {
  double time_h = 0;
  double temp_c = 0;
};

/// Design figure behind the default branch flow (CONTEXT.md §2: ~1.5 L/min of coolant per kW).
inline constexpr double FLOW_L_PER_MIN_PER_KW = 1.5;

struct CoolingSpec {
  int racks_per_loop = 8;
  Isolation isolation = Isolation::RACK;
  double supply_c = 45;
  double daily_amplitude_k = 0;
  double daily_peak_h = 15;
  double seasonal_amplitude_k = 0;
  double seasonal_peak_day = 200;
  double start_day = 0;
  double profile_step_s = 900;
  std::vector<TracePoint> facility_trace; ///< facility water temperature; empty: the profile applies
  std::string facility_trace_file;        ///< as written; the tools read it into facility_trace
  double cdu_approach_k = 3;
  double facility_excursion_k = 10;
  double glycol_frac = 0.25;
  double rack_flow_l_per_min = 0; ///< resolved by decode_scenario when not given
  bool rack_flow_given = false;
  double cdu_capacity_kw = 1400;
  int pumps = 3;
  double pump_capacity_frac = 0.5;
  double branch_pressure_drop_kpa = 50;
  double valve_fault_flow_frac = 0.5;
  ThermalParams thermal;        ///< coolant filled from glycol_frac
  double racky_interval_s = -1; ///< < 0: the output's timeseries_interval_s
  RackyGauges racky_gauges = RackyGauges::LOOP;
  double racky_detect_s = 10;
  int crews = 0;

  bool has_trace() const { return !facility_trace.empty() || !facility_trace_file.empty(); }
  bool profile_varies() const { return daily_amplitude_k > 0 || seasonal_amplitude_k > 0; }
  int loops(int racks) const { return (racks + racks_per_loop - 1) / racks_per_loop; }
};

/// Units of a cooling element on `racks` racks.
int cooling_unit_count(const CoolingSpec& spec, CoolingElement element, int racks);
/// A CDU loop's name: "loop0003".
std::string loop_name(int loop);
/// A cooling element's name in events: "rack0003/branch", "rack0003/valve", "loop0001/pump1",
/// "loop0001/cdu", "facility_water".
std::string cooling_unit_name(const CoolingSpec& spec, CoolingElement element, int unit,
                              const std::function<std::string(int rack)>& rack_name);

const sim::KeyTable& cooling_keys();
const sim::KeyTable& throttle_point_keys();

/// Decodes `/cooling` (present in the document). The branch flow default is resolved by the scenario,
/// which knows the rack's design power.
CoolingSpec decode_cooling(const sim::Node& cooling);

/// Checks one trace point after the previous one (time_h < 0 for the first): returns a message, or ""
/// when the point is fine. Shared by the inline trace and the tools' CSV reader.
std::string check_trace_time(double previous_time_h, double time_h);
std::string check_trace_temp(double temp_c);

} // namespace dcsim::cooling
