#include "tools/dcsim/cost.hpp"

#include "models/fabric/clos_graph.hpp"
#include "models/hardware/layout.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <optional>

namespace dcsim::tools {

cost::CostSpec scenario_prices(const Scenario& s, bool& gpu_priced) {
  gpu_priced = true;
  if (s.cost) return *s.cost;
  if (auto d = cost::default_cost(s.hardware, s.operations)) return *d;
  gpu_priced = false; // a GPU model without a default price: everything else at its default
  const sim::Json block = {{"gpu_usd", 0}};
  sim::Problems problems;
  return cost::decode_cost(sim::Node(block, "/cost", cost::cost_keys(), problems), s.hardware, s.operations);
}

cost::CostModel scenario_cost_model(const Scenario& s, bool& gpu_priced) {
  const cost::CostSpec prices = scenario_prices(s, gpu_priced);
  std::optional<fabric::FabricSizing> counts;
  if (s.fabric) {
    const hardware::Layout layout(s.hardware, s.cluster);
    counts = fabric::ClosGraph(fabric::ClosPlan(*s.fabric, layout)).counts();
  }
  return cost::make_cost_model(cost_plant(s), prices, counts ? &*counts : nullptr);
}

std::string bill_text(const cost::Bill& bill, const std::string& area) {
  std::string out =
      fmt::format("  {:<8} {:<24} {:>10} {:>14} {:>16}\n", "area", "item", "count", "unit USD", "total USD");
  double total = 0;
  for (const auto& l : bill.lines()) {
    if (!area.empty() && l.area != area) continue;
    out += fmt::format("  {:<8} {:<24} {:>10} {:>14.2f} {:>16.2f}\n", l.area, l.item, l.count, l.unit_usd,
                       l.total_usd);
    total += l.total_usd;
  }
  out += fmt::format("  {:<8} {:<24} {:>10} {:>14} {:>16.2f}\n", area.empty() ? "capex" : area, "total", "",
                     "", total);
  return out;
}

namespace {

std::string cost_json(const Scenario& s, const cost::CostModel& m, bool gpu_priced) {
  nlohmann::ordered_json j;
  j["scenario"] = s.name;
  j["prices"] = s.cost ? "scenario" : "defaults";
  j["gpu_priced"] = gpu_priced;
  j["lines"] = nlohmann::ordered_json::array();
  for (const auto& l : m.bill.lines())
    j["lines"].push_back({{"area", l.area},
                          {"item", l.item},
                          {"count", l.count},
                          {"unit_usd", l.unit_usd},
                          {"total_usd", l.total_usd}});
  j["capex_usd"] = m.bill.capex_usd();
  j["it_capacity_mw"] = m.it_capacity_w / 1e6;
  const cost::RunCost hour = cost::cluster_run_cost(m, 1.0, 0.0);
  j["capex_usd_per_h"] = hour.capex_usd;
  j["financing_usd_per_h"] = hour.financing_usd;
  j["facility_usd_per_h"] = hour.facility_usd;
  j["crews_usd_per_h"] = hour.crews_usd;
  j["fixed_usd_per_gpu_h"] = hour.total_usd() / m.gpus;
  return j.dump() + "\n";
}

std::string cost_text(const Scenario& s, const cost::CostModel& m, bool gpu_priced) {
  std::string out =
      fmt::format("scenario {}: priced bill of materials ({}; US dollars, estimates: docs/cost.md)\n", s.name,
                  s.cost ? "prices from /cost, defaults elsewhere" : "default prices: no /cost block");
  if (!gpu_priced)
    out += fmt::format("  note: GPU model \"{}\" has no default price: its line is 0 (give /cost/gpu_usd)\n",
                       s.hardware.gpu.model);
  out += bill_text(m.bill);
  const cost::RunCost hour = cost::cluster_run_cost(m, 1.0, 0.0);
  out +=
      fmt::format("  IT capacity {:.3f} MW (racks at rack_power_kw + fabric); per hour of a run: capex "
                  "depreciation {:.2f}, financing {:.2f}, facility {:.2f}, crews {:.2f} = {:.2f} USD ({:.4f} USD "
                  "per GPU-hour before electricity; {:.4f} per usable GPU-hour, spares charged)\n",
                  m.it_capacity_w / 1e6, hour.capex_usd, hour.financing_usd, hour.facility_usd, hour.crews_usd,
                  hour.total_usd(), hour.total_usd() / m.gpus, hour.total_usd() / m.usable_gpus);
  out += fmt::format(
      "  electricity: IT energy x pue {} x {} USD/MWh (dcsim run reports it with the energy model)\n",
      m.prices.pue, m.prices.electricity_usd_per_mwh);
  return out;
}

} // namespace

int cost_command(const CostOptions& options) {
  const auto loaded = load_scenario(options.scenario_path, options.overrides, {options.allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  const Scenario& s = *loaded.scenario;
  bool gpu_priced = true;
  const cost::CostModel model = scenario_cost_model(s, gpu_priced);
  std::cout << (options.json ? cost_json(s, model, gpu_priced) : cost_text(s, model, gpu_priced));
  return 0;
}

} // namespace dcsim::tools
