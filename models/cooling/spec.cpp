#include "models/cooling/spec.hpp"

#include <fmt/format.h>

namespace dcsim::cooling {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

namespace {
// Plausible temperatures of water circuits, °C (a typo guard, not physics).
constexpr double MIN_WATER_C = -20;
constexpr double MAX_WATER_C = 90;
sim::Bounds clock_bounds() {
  return sim::Bounds{0.0, 1.0, true, true};
} // in (0, 1)
sim::Bounds hour_of_day() {
  return sim::Bounds{0.0, 24.0, false, true};
}
sim::Bounds day_of_year() {
  return sim::Bounds{0.0, 365.0, false, true};
}
std::string number_text(double v) {
  return fmt::format("{}", v);
}
} // namespace

std::string_view isolation_name(Isolation isolation) {
  return isolation == Isolation::RACK ? "rack" : "loop";
}

std::string_view cooling_element_name(CoolingElement element) {
  switch (element) {
  case CoolingElement::BRANCH:
    return "branch";
  case CoolingElement::VALVE:
    return "valve";
  case CoolingElement::PUMP:
    return "pump";
  case CoolingElement::LOOP:
    return "loop";
  case CoolingElement::FACILITY:
    return "facility";
  }
  return "?";
}

std::string loop_name(int loop) { return fmt::format("loop{:04d}", loop); }

std::string cooling_unit_name(const CoolingSpec& spec, CoolingElement element, int unit,
                              const std::function<std::string(int rack)>& rack_name) {
  switch (element) {
  case CoolingElement::BRANCH: return rack_name(unit) + "/branch";
  case CoolingElement::VALVE: return rack_name(unit) + "/valve";
  case CoolingElement::PUMP: return fmt::format("{}/pump{}", loop_name(unit / spec.pumps), unit % spec.pumps);
  case CoolingElement::LOOP: return loop_name(unit) + "/cdu";
  case CoolingElement::FACILITY: return "facility_water";
  }
  return "?";
}

int cooling_unit_count(const CoolingSpec& spec, CoolingElement element, int racks) {
  switch (element) {
  case CoolingElement::BRANCH:
  case CoolingElement::VALVE:
    return racks;
  case CoolingElement::PUMP:
    return spec.loops(racks) * spec.pumps;
  case CoolingElement::LOOP:
    return spec.loops(racks);
  case CoolingElement::FACILITY:
    return 1;
  }
  return 0;
}

// flat table: the cooling key table, one KeyDef a key (STYLE.md: the allowed-key list and its docs).
// clang-format off
const KeyTable& cooling_keys() {
  static const KeyTable table{
      "cooling", "/cooling",
      "liquid cooling: CDU loops, pumps, per-rack valves, coolant, supply temperature, GPU throttling, Racky sensors",
      {
          KeyDef{"racks_per_loop", ValueType::INTEGER, "", 8,
                 "racks served by one CDU loop, in rack order (the last loop may serve fewer)", sim::at_least(1)},
          KeyDef{"isolation", ValueType::STRING, "", "rack",
                 "rack: a programmable valve per rack branch (Valvey) isolates one rack; loop: no per-rack valves, "
                 "isolating anything shuts the whole loop",
                 {}, {"rack", "loop"}},
          KeyDef{"supply_c", ValueType::NUMBER, "C", 45.0,
                 "coolant supply temperature to the racks (Rubin ~45 C, CONTEXT §2); the mean of the daily and "
                 "seasonal profile",
                 sim::between(MIN_WATER_C, MAX_WATER_C)},
          KeyDef{"daily_amplitude_k", ValueType::NUMBER, "K", 0.0,
                 "half the daily swing of the supply temperature (a cosine peaking at daily_peak_h)",
                 sim::non_negative()},
          KeyDef{"daily_peak_h", ValueType::NUMBER, "h", 15.0, "hour of day of the daily peak", hour_of_day()},
          KeyDef{"seasonal_amplitude_k", ValueType::NUMBER, "K", 0.0,
                 "half the yearly swing of the supply temperature (a cosine peaking at seasonal_peak_day)",
                 sim::non_negative()},
          KeyDef{"seasonal_peak_day", ValueType::NUMBER, "day", 200.0, "day of year of the seasonal peak",
                 day_of_year()},
          KeyDef{"start_day", ValueType::NUMBER, "day", 0.0, "day of year at the start of the run (t = 0)",
                 day_of_year()},
          KeyDef{"profile_step_s", ValueType::NUMBER, "s", 900.0,
                 "a varying profile is applied in steps of this length (temperatures are re-evaluated at each)",
                 sim::at_least(1)},
          KeyDef{"facility_water_trace", ValueType::ARRAY, "", nullptr,
                 "facility water temperature as [time_h, facility_water_c] pairs, time increasing; each value "
                 "holds until the next; supply = trace + cdu_approach_k",
                 {}, {}, "none: the supply_c profile"},
          KeyDef{"facility_water_trace_file", ValueType::STRING, "", nullptr,
                 "CSV file (header time_h,facility_water_c), relative to the scenario file; read by dcsim as "
                 "facility_water_trace",
                 {}, {}, "none"},
          KeyDef{"cdu_approach_k", ValueType::NUMBER, "K", 3.0,
                 "supply temperature above the facility water temperature (CDU heat exchanger approach; "
                 "estimate); only with a trace",
                 sim::non_negative()},
          KeyDef{"facility_excursion_k", ValueType::NUMBER, "K", 10.0,
                 "supply temperature rise while a `facility` failure (facility water excursion) lasts (assumption)",
                 sim::non_negative()},
          KeyDef{"glycol_frac", ValueType::NUMBER, "", 0.25,
                 "propylene glycol in the coolant, volume fraction (sets c_p and density; CONTEXT §2: 25%)",
                 sim::between(0, MAX_GLYCOL_FRAC)},
          KeyDef{"rack_flow_l_per_min", ValueType::NUMBER, "L/min", nullptr, "design coolant flow of one rack branch",
                 sim::positive(), {}, "1.5 L/min per kW of the rack's design power (CONTEXT §2)"},
          KeyDef{"cdu_capacity_kw", ValueType::NUMBER, "kW", 1400.0,
                 "heat one CDU can remove; racks_per_loop racks at design power must fit (CONTEXT §2: 1-1.4 MW)",
                 sim::positive()},
          KeyDef{"pumps", ValueType::INTEGER, "", 3, "pumps installed in each CDU", sim::at_least(1)},
          KeyDef{"pump_capacity_frac", ValueType::NUMBER, "", 0.5,
                 "flow one pump delivers, as a fraction of the loop's design flow: k working pumps give "
                 "min(1, k x frac) (N+1 redundancy: pumps = N + 1, frac = 1/N)",
                 sim::Bounds{0.0, 1.0, true, false}},
          KeyDef{"branch_pressure_drop_kpa", ValueType::NUMBER, "kPa", 50.0,
                 "pressure drop across a rack branch at design flow (estimate); scales with flow squared",
                 sim::positive()},
          KeyDef{"valve_fault_flow_frac", ValueType::NUMBER, "", 0.5,
                 "flow left to a branch whose valve failed (stuck part-closed; assumption), as a fraction",
                 sim::Bounds{0.0, 1.0, false, true}},
          KeyDef{"gpu_thermal_resistance_k_per_w", ValueType::NUMBER, "K/W", 0.011,
                 "GPU junction to coolant thermal resistance (estimate: cold plates of 1-2 kW parts)",
                 sim::positive()},
          KeyDef{"throttle_c", ValueType::NUMBER, "C", 87.0, "GPU temperature above which the clock drops (estimate)",
                 sim::between(0, 200)},
          KeyDef{"throttle_curve", ValueType::ARRAY, "",
                 Json::parse(R"([{"temp_c": 92, "clock_frac": 0.8}, {"temp_c": 95, "clock_frac": 0.5}])"),
                 "clock fraction at GPU temperatures above throttle_c (see /cooling/throttle_curve/*): linear "
                 "between points, constant after the last (estimate)"},
          KeyDef{"shutdown_c", ValueType::NUMBER, "C", 100.0,
                 "a rack whose hottest GPU stays above this even fully throttled is shut down (estimate)",
                 sim::between(0, 200)},
          KeyDef{"racky_interval_s", ValueType::NUMBER, "s", nullptr,
                 "Racky sensor sampling into timeseries.csv; 0 = no cooling gauges", sim::non_negative(), {},
                 "/output/timeseries_interval_s"},
          KeyDef{"racky_gauges", ValueType::STRING, "", "loop",
                 "cluster: cooling totals only; loop: also 6 gauges per CDU loop (228 loops at 1,820 racks: "
                 "1,368 rows per sample); rack: also 6 per rack (10,920 more rows per sample at 1,820 racks)",
                 {}, {"cluster", "loop", "rack"}},
          KeyDef{"racky_detect_s", ValueType::NUMBER, "s", 10.0,
                 "Racky's detection delay: detect_s of cooling failure modes that do not give one (estimate)",
                 sim::non_negative()},
          KeyDef{"crews", ValueType::INTEGER, "", 0,
                 "cooling technicians: service stages of cooling repairs that run at once; 0 = unlimited",
                 sim::non_negative()},
      }};
  return table;
}
// clang-format on

// clang-format off
const KeyTable& throttle_point_keys() {
  static const KeyTable table{
      "cooling", "/cooling/throttle_curve/*", "one point of the GPU throttle curve",
      {
          KeyDef{"temp_c", ValueType::NUMBER, "C", nullptr, "GPU temperature, above throttle_c and the previous point",
                 sim::between(0, 200)},
          KeyDef{"clock_frac", ValueType::NUMBER, "", nullptr,
                 "clock the GPU keeps at that temperature, ÷ nominal; not above the previous point's", clock_bounds()},
      }};
  return table;
}
// clang-format on

std::string check_trace_time(double previous_time_h, double time_h) {
  if (!(time_h >= 0)) return "must be >= 0";
  if (previous_time_h >= 0 && !(time_h > previous_time_h))
    return fmt::format("must exceed the previous time_h ({})", number_text(previous_time_h));
  return {};
}

std::string check_trace_temp(double temp_c) {
  if (!(temp_c >= MIN_WATER_C && temp_c <= MAX_WATER_C))
    return fmt::format("must be in [{}, {}]", number_text(MIN_WATER_C), number_text(MAX_WATER_C));
  return {};
}

namespace {

/// /cooling/throttle_curve: temperatures increasing above throttle_c, clocks non-increasing; and
/// shutdown_c above throttle_c.
void decode_throttle_curve(const sim::Node& n, CoolingSpec& s) {
  const KeyDef& curve_def = cooling_keys().key("throttle_curve");
  std::vector<sim::Node> points;
  if (n.has("throttle_curve")) {
    points = n.objects("throttle_curve", throttle_point_keys());
    if (n.raw("throttle_curve")->is_array() && points.empty())
      n.problem("throttle_curve", "must have at least one point");
  }
  if (!n.has("throttle_curve"))
    for (const auto& p : curve_def.default_value)
      s.thermal.curve.push_back({p.at("temp_c").get<double>(), p.at("clock_frac").get<double>()});
  double previous_temp = s.thermal.throttle_c;
  double previous_clock = 1.0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const sim::Node& p = points[i];
    ThrottlePoint point;
    point.temp_c = p.number("temp_c");
    point.clock_frac = p.number("clock_frac");
    if (p.has("temp_c") && point.temp_c <= previous_temp)
      p.problem("temp_c", i == 0 ? fmt::format("must exceed throttle_c ({})", number_text(previous_temp))
                                 : fmt::format("must exceed the previous point's temp_c ({})",
                                               number_text(previous_temp)));
    if (p.has("clock_frac") && point.clock_frac > previous_clock)
      p.problem("clock_frac", fmt::format("must not exceed the previous point's clock_frac ({})",
                                          number_text(previous_clock)));
    previous_temp = point.temp_c;
    previous_clock = point.clock_frac;
    s.thermal.curve.push_back(point);
  }
  if (n.has("shutdown_c") || n.has("throttle_c"))
    if (s.thermal.shutdown_c <= s.thermal.throttle_c)
      n.problem(n.has("shutdown_c") ? "shutdown_c" : "throttle_c",
                fmt::format("shutdown_c ({}) must exceed throttle_c ({})", number_text(s.thermal.shutdown_c),
                            number_text(s.thermal.throttle_c)));
}

/// Supply temperature: a profile around supply_c, or a facility water trace (inline or a file).
void decode_supply(const sim::Node& n, CoolingSpec& s) {
  if (const Json* trace = n.raw("facility_water_trace")) {
    n.optional_string("facility_water_trace_file"); // type check
    if (!trace->is_array()) {
      n.problem("facility_water_trace", "must be an array of [time_h, facility_water_c] pairs");
    } else if (trace->empty()) {
      n.problem("facility_water_trace", "must have at least one point");
    } else {
      double previous_time = -1;
      for (std::size_t i = 0; i < trace->size(); ++i) {
        const Json& p = (*trace)[i];
        const std::string at = n.child_pointer("facility_water_trace") + "/" + std::to_string(i);
        if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
          n.problems().add(at, "must be a pair [time_h, facility_water_c] of numbers", &p);
          continue;
        }
        const double t = p[0].get<double>();
        const double c = p[1].get<double>();
        if (auto e = check_trace_time(previous_time, t); !e.empty()) n.problems().add(at + "/0", e, &p[0]);
        if (auto e = check_trace_temp(c); !e.empty()) n.problems().add(at + "/1", e, &p[1]);
        previous_time = t;
        s.facility_trace.push_back({t, c});
      }
    }
  }
  if (auto file = n.optional_string("facility_water_trace_file")) {
    s.facility_trace_file = *file;
    if (n.has("facility_water_trace"))
      n.problem("facility_water_trace_file",
                "give facility_water_trace or facility_water_trace_file, not both");
    else if (file->empty())
      n.problem("facility_water_trace_file", "must name a file");
  }
  if (s.has_trace()) {
    for (const char* key : {"supply_c", "daily_amplitude_k", "daily_peak_h", "seasonal_amplitude_k",
                            "seasonal_peak_day", "start_day", "profile_step_s"})
      if (n.has(key))
        n.problem(key,
                  "has no effect with a facility water trace (the supply is the trace + cdu_approach_k)");
  } else if (n.has("cdu_approach_k")) {
    n.problem("cdu_approach_k", "has no effect without a facility water trace");
  }
  if (!s.has_trace() && s.supply_c + s.daily_amplitude_k + s.seasonal_amplitude_k > MAX_WATER_C)
    n.problem("supply_c", fmt::format("with its daily and seasonal amplitudes must stay <= {} °C",
                                      number_text(MAX_WATER_C)));
}

} // namespace

CoolingSpec decode_cooling(const sim::Node& n) {
  CoolingSpec s;
  s.racks_per_loop = n.int32("racks_per_loop");
  s.isolation = n.string("isolation") == "loop" ? Isolation::LOOP : Isolation::RACK;
  s.supply_c = n.number("supply_c");
  s.daily_amplitude_k = n.number("daily_amplitude_k");
  s.daily_peak_h = n.number("daily_peak_h");
  s.seasonal_amplitude_k = n.number("seasonal_amplitude_k");
  s.seasonal_peak_day = n.number("seasonal_peak_day");
  s.start_day = n.number("start_day");
  s.profile_step_s = n.number("profile_step_s");
  s.cdu_approach_k = n.number("cdu_approach_k");
  s.facility_excursion_k = n.number("facility_excursion_k");
  s.glycol_frac = n.number("glycol_frac");
  if (auto flow = n.optional_number("rack_flow_l_per_min")) {
    s.rack_flow_l_per_min = *flow;
    s.rack_flow_given = true;
  }
  s.cdu_capacity_kw = n.number("cdu_capacity_kw");
  s.pumps = n.int32("pumps");
  s.pump_capacity_frac = n.number("pump_capacity_frac");
  s.branch_pressure_drop_kpa = n.number("branch_pressure_drop_kpa");
  s.valve_fault_flow_frac = n.number("valve_fault_flow_frac");
  s.thermal.coolant = Coolant::propylene_glycol(s.glycol_frac);
  s.thermal.thermal_resistance_k_per_w = n.number("gpu_thermal_resistance_k_per_w");
  s.thermal.throttle_c = n.number("throttle_c");
  s.thermal.shutdown_c = n.number("shutdown_c");
  if (auto v = n.optional_number("racky_interval_s")) s.racky_interval_s = *v;
  const std::string gauges = n.string("racky_gauges");
  s.racky_gauges = gauges == "rack"      ? RackyGauges::RACK
                   : gauges == "cluster" ? RackyGauges::CLUSTER
                                         : RackyGauges::LOOP;
  s.racky_detect_s = n.number("racky_detect_s");
  s.crews = n.int32("crews");

  decode_throttle_curve(n, s);
  decode_supply(n, s);

  if (s.pumps * s.pump_capacity_frac < 1.0 - 1e-12)
    n.problem(
        n.has("pump_capacity_frac") ? "pump_capacity_frac" : "pumps",
        fmt::format("pumps ({}) x pump_capacity_frac ({}) must reach 1: the loop's design flow with every "
                    "pump working",
                    s.pumps, number_text(s.pump_capacity_frac)));
  return s;
}

} // namespace dcsim::cooling
