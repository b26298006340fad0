#include "models/cost/spec.hpp"

#include <fmt/format.h>

#include <utility>

namespace dcsim::cost {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

namespace {

// System price per GPU by catalogue model (sources in spec.hpp).
constexpr std::pair<std::string_view, double> GPU_USD[] = {
    {"rubin", 7.8e6 / 72}, {"gb300", 4.0e6 / 72}, {"gb200", 3.5e6 / 72}, {"b200", 515410.0 / 8},
    {"h200", 5.0e6 / 112}, {"h100-sxm", 40000.0}, {"a100-80g", 25000.0},
};

std::string gpu_price_note() {
  std::string note = "by hardware.gpu.model:";
  for (const auto& [model, usd] : GPU_USD)
    note += fmt::format(" {} {:.0f}", model, usd);
  return note + " (rack price ÷ 72 from Morgan Stanley estimates; HGX/DGX prices ÷ 8; see docs/cost.md)";
}

} // namespace

std::optional<double> default_gpu_usd(std::string_view model) {
  for (const auto& [name, usd] : GPU_USD)
    if (name == model) return usd;
  return std::nullopt;
}

// clang-format off
const KeyTable& cost_keys() {
  static const KeyTable table{
      "cost", "/cost", "price catalogue (US dollars): capex of the bill of materials, opex, depreciation (docs/cost.md)",
      {
          KeyDef{"gpu_usd", ValueType::NUMBER, "USD", nullptr,
                 "system price per GPU: the rack's (or server's) price ÷ its GPUs, CPUs, NVLink, NICs and trays "
                 "included", sim::non_negative(), {}, gpu_price_note()},
          KeyDef{"spare_parts_usd_per_rack", ValueType::NUMBER, "USD", 100000.0,
                 "parts kept on the shelf per rack: trays, power supplies, optics, cables (estimate)",
                 sim::non_negative()},
          KeyDef{"switch_usd_per_tbps", ValueType::NUMBER, "USD", 3906.0,
                 "fabric switch price per Tb/s of capacity (radix x port_gbps): 200,000 $ per 51.2 Tb/s switch "
                 "(luxoptx.com 2025)", sim::non_negative()},
          KeyDef{"transceiver_usd", ValueType::NUMBER, "USD", 1250.0,
                 "per optical transceiver module (800G OSFP DR8 1,100-1,400 $, luxoptx.com 2025)",
                 sim::non_negative()},
          KeyDef{"fiber_cable_usd", ValueType::NUMBER, "USD", 100.0,
                 "per optical cable (MPO trunk 50-150 $, luxoptx.com 2025)", sim::non_negative()},
          KeyDef{"copper_cable_usd", ValueType::NUMBER, "USD", 150.0, "per copper (DAC) cable (estimate)",
                 sim::non_negative()},
          KeyDef{"cdu_usd", ValueType::NUMBER, "USD", 250000.0, "per CDU, one per cooling loop (estimate)",
                 sim::non_negative()},
          KeyDef{"pump_usd", ValueType::NUMBER, "USD", 15000.0, "per CDU pump (estimate)", sim::non_negative()},
          KeyDef{"valve_usd", ValueType::NUMBER, "USD", 5000.0, "per rack valve assembly (Valvey) (estimate)",
                 sim::non_negative()},
          KeyDef{"facility_usd_per_mw_year", ValueType::NUMBER, "USD/MW-year", 2208720.0,
                 "building, power and cooling plant per MW of IT capacity and year (CBRE H2 2024: 184.06 $ per "
                 "kW-month, wholesale)", sim::non_negative()},
          KeyDef{"electricity_usd_per_mwh", ValueType::NUMBER, "USD/MWh", 80.6,
                 "electricity price (US industrial average 2023, EIA)", sim::non_negative()},
          KeyDef{"pue", ValueType::NUMBER, "", 1.2,
                 "power usage effectiveness: grid energy ÷ IT energy (estimate for a liquid-cooled hall)",
                 sim::between(1, 5)},
          KeyDef{"depreciation_years", ValueType::NUMBER, "years", 6.0,
                 "straight-line life of the equipment (CoreWeave S-1: six years)",
                 sim::Bounds{0.0, 50.0, true, false}},
          KeyDef{"repair_crew_usd_per_h", ValueType::NUMBER, "USD/h", 100.0,
                 "per staffed repair crew and hour (estimate: two technicians)", sim::non_negative()},
          KeyDef{"staffed_crews", ValueType::INTEGER, "", nullptr, "repair crews paid around the clock",
                 sim::between(0, 100000), {}, "operations.repair_crews (0 when crews are unlimited)"},
      }};
  return table;
}
// clang-format on

CostSpec decode_cost(const sim::Node& n, const hardware::HardwareSpec& hardware,
                     const ops::OperationsSpec& operations) {
  CostSpec s;
  if (auto usd = n.optional_number("gpu_usd"))
    s.gpu_usd = *usd;
  else if (auto model_usd = default_gpu_usd(hardware.gpu.model))
    s.gpu_usd = *model_usd;
  else
    n.problems().add(
        n.child_pointer("gpu_usd"),
        fmt::format("is required: GPU model \"{}\" has no default price (defaults exist for rubin, "
                    "gb300, gb200, b200, h200, h100-sxm, a100-80g)",
                    hardware.gpu.model));
  s.spare_parts_usd_per_rack = n.number("spare_parts_usd_per_rack");
  s.switch_usd_per_tbps = n.number("switch_usd_per_tbps");
  s.transceiver_usd = n.number("transceiver_usd");
  s.fiber_cable_usd = n.number("fiber_cable_usd");
  s.copper_cable_usd = n.number("copper_cable_usd");
  s.cdu_usd = n.number("cdu_usd");
  s.pump_usd = n.number("pump_usd");
  s.valve_usd = n.number("valve_usd");
  s.facility_usd_per_mw_year = n.number("facility_usd_per_mw_year");
  s.electricity_usd_per_mwh = n.number("electricity_usd_per_mwh");
  s.pue = n.number("pue");
  s.depreciation_years = n.number("depreciation_years");
  s.repair_crew_usd_per_h = n.number("repair_crew_usd_per_h");
  const auto crews = n.optional_integer("staffed_crews"); // bounded to [0, 100000]
  s.staffed_crews = crews ? static_cast<int>(*crews) : operations.repair_crews;
  return s;
}

std::optional<CostSpec> default_cost(const hardware::HardwareSpec& hardware,
                                     const ops::OperationsSpec& operations) {
  const Json empty = Json::object();
  sim::Problems problems;
  const sim::Node node(empty, "/cost", cost_keys(), problems);
  CostSpec s = decode_cost(node, hardware, operations);
  if (!problems.empty()) return std::nullopt;
  return s;
}

} // namespace dcsim::cost
