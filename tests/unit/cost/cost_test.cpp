// The cost area (models/cost/): the price catalogue's decoding, the priced bill of materials against
// the counts `dcsim topology` prints, and the run's cost lines and ratios, derived by hand.
#include "models/cost/bill.hpp"
#include "models/cost/run_cost.hpp"
#include "models/fabric/clos_graph.hpp"
#include "models/hardware/catalogue.hpp"
#include "models/hardware/layout.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/cost.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/topology.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

using namespace dcsim;

namespace {

const char* BASE = R"({
  "name": "t", "replicas": 1, "duration_h": 24,
  "hardware": { "gpu": { "model": "rubin" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
  "cluster": { "racks": 4 },
  "failures": { "modes": [ { "name": "gpu", "scope": "gpu", "mtbf_h": 50000 } ] },
  "operations": { "spare_racks": 1, "repair_crews": 2 },
  "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 1, "model_flops_per_step": 1e15, "tokens_per_step": 4e6 } ],
  "cost": {}
})";

std::string errors_with(std::vector<std::string> edits) {
  const auto loaded = tools::load_scenario_text(BASE, "t.json", edits);
  CHECK_FALSE(loaded.scenario.has_value());
  return loaded.errors;
}

/// The cost model of the fabric reference scenario with `overrides`.
cost::CostModel fabric_model(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"cost={}", "fabric.gpu_link_media=copper"}; // both cable lines
  all.insert(all.end(), overrides.begin(), overrides.end());
  const Scenario s = test::scenario_from_file("scenarios/gb300-llama70b-fabric.json", all);
  bool gpu_priced = false;
  cost::CostModel m = tools::scenario_cost_model(s, gpu_priced);
  CHECK(gpu_priced);
  return m;
}

} // namespace

TEST_CASE("cost: every default comes from the key table, the GPU price from the model", "[unit][cost]") {
  const auto loaded = tools::load_scenario_text(BASE, "t.json");
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  REQUIRE(loaded.scenario->cost);
  const cost::CostSpec& c = *loaded.scenario->cost;
  CHECK(c.gpu_usd == 7.8e6 / 72);
  CHECK(c.electricity_usd_per_mwh == 80.6);
  CHECK(c.facility_usd_per_mw_year == Approx(184.06 * 12 * 1000).epsilon(1e-15));
  CHECK(c.depreciation_years == 5);
  CHECK(c.cost_of_capital_frac == 0.11);
  CHECK(c.flash_usd_per_tb == 220);
  CHECK_FALSE(c.rent_usd_per_gpu_h.has_value()); // no public Rubin rental price
  CHECK(c.pue == 1.2);
  CHECK(c.staffed_crews == 2); // operations.repair_crews
  CHECK_FALSE(tools::load_scenario_text(R"({"cluster":{"racks":2}})", "u.json").scenario->cost.has_value());
}

TEST_CASE("cost: bad prices are located errors", "[unit][cost][bad_input]") {
  CHECK(errors_with({"cost.pue=0.5"}) == "t.json: /cost/pue: must be in [1, 5] (got 0.5)\n");
  CHECK(errors_with({"cost.gpu_usd=-1"}) == "t.json: /cost/gpu_usd: must be >= 0 (got -1)\n");
  CHECK(errors_with({"cost.depreciation_years=0"}) ==
        "t.json: /cost/depreciation_years: must be in (0, 50] (got 0)\n");
  CHECK(errors_with({"cost.staffed_crews=1.5"}) ==
        "t.json: /cost/staffed_crews: must be an integer (got 1.5)\n");
  CHECK(errors_with({"cost.electricity_usd_per_kwh=0.1"}) ==
        "t.json: /cost/electricity_usd_per_kwh: unknown key; did you mean \"electricity_usd_per_mwh\"? (got "
        "0.1)\n");
  // Every catalogue GPU model has a default price (a model added to the catalogue fails here until priced).
  for (const auto& model : hardware::gpu_kind_names()) {
    INFO(model);
    CHECK(cost::default_gpu_usd(model).value_or(0) > 0);
  }
}

TEST_CASE("cost: a training target in tokens is checked against the job", "[unit][cost][bad_input]") {
  CHECK(errors_with({"jobs.0.target_tokens=0"}) ==
        "t.json: /jobs/0/target_tokens: must be in (0, 1e+18] (got 0)\n");
  CHECK(
      errors_with({"jobs.0.target_tokens=1e12", "jobs.0.work_h=10"}) ==
      "t.json: /jobs/0/target_tokens: and work_h both set the job's work: give one (got 1000000000000.0)\n");
  const auto loaded = tools::load_scenario_text(BASE, "t.json", {"jobs.0.target_tokens=1e12"});
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  CHECK(loaded.scenario->jobs[0].target_tokens == 1e12);
  const auto no_tokens = tools::load_scenario_text(
      R"({"cluster": {"racks": 2}, "jobs": [{"name": "j", "gpus": 64, "step_time_s": 1, "model_flops_per_step": 1e15,
          "target_tokens": 1e9}]})",
      "t.json");
  CHECK(no_tokens.errors == "t.json: /jobs/0/target_tokens: needs the job's tokens per step: a model, or "
                            "tokens_per_step (got 1000000000.0)\n");
  const auto no_step = tools::load_scenario_text(
      R"({"cluster": {"racks": 2}, "jobs": [{"name": "j", "gpus": 64, "tokens_per_step": 1e6,
          "target_tokens": 1e9}]})",
      "t.json");
  CHECK(no_step.errors == "t.json: /jobs/0/target_tokens: needs the job's step time: a model, or step_time_s "
                          "(got 1000000000.0)\n");
  const auto open_ended = tools::load_scenario_text(
      R"({"cluster": {"racks": 2}, "jobs": [{"name": "j", "gpus": 64, "deadline_h": 10}]})", "t.json");
  CHECK(open_ended.errors == "t.json: /jobs/0/deadline_h: needs the job's work: work_h or target_tokens (an "
                             "open-ended job has no end to be late) (got 10)\n");
}

TEST_CASE("cost: the priced bill of a fabric is dcsim topology's counts times the prices", "[unit][cost]") {
  const Scenario s = test::scenario_from_file("scenarios/gb300-llama70b-fabric.json",
                                              {"cost={}", "cost.switch_usd_per_tbps=4000",
                                               "cost.transceiver_usd=900", "cost.fiber_cable_usd=70",
                                               "cost.copper_cable_usd=40", "fabric.gpu_link_media=copper"});
  // What `dcsim topology --json` prints for this scenario.
  const hardware::Layout layout(s.hardware, s.cluster);
  const fabric::ClosGraph graph(fabric::ClosPlan(*s.fabric, layout));
  const auto topo = nlohmann::json::parse(tools::sizing_json(s.name, *s.fabric, graph.sizing()));
  const auto count = [&topo](const char* key) { return topo.at(key).get<std::int64_t>(); };
  bool gpu_priced = false;
  const cost::CostModel m = tools::scenario_cost_model(s, gpu_priced);
  const double switch_usd =
      topo.at("switch_radix").get<double>() * topo.at("port_gbps").get<double>() / 1000 * 4000;
  REQUIRE(count("switches") > 0);
  REQUIRE(count("cables") > count("optical_links")); // copper GPU links, optical switch links: both lines
  REQUIRE(count("optical_links") > 0);
  CHECK(m.bill.line("switches")->count == count("switches"));
  CHECK(m.bill.line("switches")->total_usd == static_cast<double>(count("switches")) * switch_usd);
  CHECK(m.bill.line("transceivers")->total_usd == static_cast<double>(count("optics")) * 900);
  CHECK(m.bill.line("optical cables")->total_usd == static_cast<double>(count("optical_links")) * 70);
  CHECK(m.bill.line("copper cables")->total_usd ==
        static_cast<double>(count("cables") - count("optical_links")) * 40);
  CHECK(m.bill.area_usd("fabric") ==
        m.bill.line("switches")->total_usd + m.bill.line("transceivers")->total_usd +
            m.bill.line("optical cables")->total_usd + m.bill.line("copper cables")->total_usd);
  // Compute: 34 racks of 72 GB300 at 4.0 M$ per rack, and spare parts per rack.
  CHECK(m.bill.line("GPUs (system price)")->total_usd == Approx(34 * 4.0e6).epsilon(1e-12));
  CHECK(m.bill.line("spare parts (per rack)")->total_usd == 34 * 100000.0);
  CHECK(m.bill.line("CDUs") == nullptr); // no /cooling: no cooling lines
}

TEST_CASE("cost: scaling one price by x scales its own line by x and no other line", "[unit][cost]") {
  // Each price, scaled by x through --set as a planner would, against the line it prices.
  const std::vector<std::tuple<std::string, double cost::CostSpec::*, std::string>> bill_prices = {
      {"gpu_usd", &cost::CostSpec::gpu_usd, "GPUs (system price)"},
      {"spare_parts_usd_per_rack", &cost::CostSpec::spare_parts_usd_per_rack, "spare parts (per rack)"},
      {"switch_usd_per_tbps", &cost::CostSpec::switch_usd_per_tbps, "switches"},
      {"transceiver_usd", &cost::CostSpec::transceiver_usd, "transceivers"},
      {"fiber_cable_usd", &cost::CostSpec::fiber_cable_usd, "optical cables"},
  };
  const double x = 3;
  const cost::CostModel base = fabric_model({});
  for (const auto& [key, price, item] : bill_prices) {
    INFO(key);
    const cost::CostModel scaled =
        fabric_model({fmt::format("cost.{}={:.17g}", key, base.prices.*price * x)});
    REQUIRE(base.bill.lines().size() == scaled.bill.lines().size());
    for (std::size_t i = 0; i < base.bill.lines().size(); ++i) {
      const auto& a = base.bill.lines()[i];
      const auto& b = scaled.bill.lines()[i];
      INFO(a.item);
      REQUIRE(a.total_usd > 0);
      if (a.item == item)
        CHECK(b.total_usd == Approx(x * a.total_usd).epsilon(1e-14));
      else
        CHECK(b.total_usd == a.total_usd);
    }
  }
  // The run's lines: facility, energy and crews each have their own price; capex its depreciation period
  // (a divisor: a period x times longer divides the line by x).
  const std::vector<std::tuple<std::string, double cost::CostSpec::*, std::string>> run_prices = {
      {"facility_usd_per_mw_year", &cost::CostSpec::facility_usd_per_mw_year, "facility"},
      {"electricity_usd_per_mwh", &cost::CostSpec::electricity_usd_per_mwh, "energy"},
      {"repair_crew_usd_per_h", &cost::CostSpec::repair_crew_usd_per_h, "crews"},
      {"depreciation_years", &cost::CostSpec::depreciation_years, "capex"}};
  const auto lines = [](const cost::RunCost& c) {
    return std::map<std::string, double>{{"capex", c.capex_usd},
                                         {"energy", c.energy_usd},
                                         {"facility", c.facility_usd},
                                         {"crews", c.crews_usd}};
  };
  const auto base_lines = lines(cost::cluster_run_cost(base, 336, 500));
  for (const auto& [key, price, line] : run_prices) {
    INFO(key);
    const cost::CostModel scaled =
        fabric_model({fmt::format("cost.{}={:.17g}", key, base.prices.*price * x)});
    const auto scaled_lines = lines(cost::cluster_run_cost(scaled, 336, 500));
    for (const auto& [name, value] : base_lines) {
      INFO(name);
      REQUIRE(value > 0);
      if (name == line)
        CHECK(scaled_lines.at(name) ==
              Approx(key == "depreciation_years" ? value / x : value * x).epsilon(1e-14));
      else
        CHECK(scaled_lines.at(name) == value);
    }
  }
}

TEST_CASE("cost: a run's lines, a job's share and cost per useful token, derived by hand", "[unit][cost]") {
  // 4 racks of 72 Rubin GPUs (288 GPUs; 8 in-rack spares per rack, 1 spare rack), 24 h; one job of 128
  // GPUs held all 24 h (3,072 GPU-h): 2,800 productive, 272 rework; step 1 s of 4e6 tokens. Cluster IT
  // energy 5 MWh, the job's 3 MWh.
  const auto loaded = tools::load_scenario_text(BASE, "t.json");
  REQUIRE(loaded.scenario);
  const Scenario& s = *loaded.scenario;
  bool gpu_priced = false;
  const cost::CostModel m = tools::scenario_cost_model(s, gpu_priced);
  ledger::ReplicaResult r;
  r.gpus = 288;
  r.duration = sim::hours_to_ticks(24);
  r.energy_j = 5 * 3.6e9;
  ledger::JobOutcome job;
  job.name = "j";
  job.gpus = 128;
  job.step_time_s = 1;
  job.tokens_per_step = 4e6;
  job.energy_j = 3 * 3.6e9;
  job.gpu_h[static_cast<std::size_t>(workload::JobTime::PRODUCTIVE)] = 2800;
  job.gpu_h[static_cast<std::size_t>(workload::JobTime::REWORK)] = 272;
  r.jobs = {job};

  // Capex: 288 GPUs x 7.8e6/72 + 4 racks x 100,000 = 31,600,000 $; depreciated over 24 h of 5 years, and
  // financed at 11%: CRF(0.11, 5) = 0.11 x 1.11^5 / (1.11^5 - 1) = 0.11 x 1.685058 / 0.685058 = 0.270570.
  CHECK(m.bill.capex_usd() == Approx(31.6e6).epsilon(1e-12));
  const cost::RunCost c = cost::cluster_run_cost(m, 24, 5);
  CHECK(c.capex_usd == Approx(31.6e6 * 24 / (5 * 8760)).epsilon(1e-12));
  CHECK(c.financing_usd == Approx(31.6e6 * (0.270570 - 0.2) * 24 / 8760).epsilon(1e-5));
  // Facility: 4 racks at the Vera Rubin NVL72's 190 kW (docs/hardware.md: 72 x 1.8 kW + 60.4 kW).
  CHECK(m.it_capacity_w == Approx(4 * 190000.0).epsilon(1e-12));
  CHECK(c.facility_usd == Approx(2208720.0 * 0.76 * 24 / 8760).epsilon(1e-12));
  CHECK(c.crews_usd == 2 * 100.0 * 24);
  CHECK(c.energy_usd == Approx(5 * 1.2 * 80.6).epsilon(1e-12));

  std::map<std::string, double> jm;
  for (const auto& [name, value] : cost::job_cost_metrics(m, r, job))
    jm[name] = value;
  // Its own share: 3,072 of 288 x 24 GPU-h. Spares: U = (4 - 1 spare rack) x 64 = 192 usable GPUs of
  // N = 288, so each GPU-hour held carries N/U - 1 = 0.5 of another in spare capacity; 128 GPUs fill 2
  // racks of 64, nothing idle.
  const double fixed_share = 3072.0 / (288 * 24);
  const double own_fixed = c.fixed_usd() * fixed_share;
  CHECK(jm.at("cost_capex_usd") == Approx(c.capex_usd * fixed_share).epsilon(1e-12));
  CHECK(jm.at("cost_financing_usd") == Approx(c.financing_usd * fixed_share).epsilon(1e-12));
  CHECK(jm.at("cost_spares_usd") == Approx(0.5 * own_fixed).epsilon(1e-12));
  CHECK(jm.at("cost_idle_usd") == 0);
  CHECK(jm.at("cost_energy_usd") == Approx(3 * 1.2 * 80.6).epsilon(1e-12));
  const double total = 1.5 * own_fixed + 3 * 1.2 * 80.6;
  CHECK(jm.at("cost_total_usd") == Approx(total).epsilon(1e-12));
  CHECK(jm.at("cost_per_gpu_h_usd") == Approx(total / 3072).epsilon(1e-12));
  CHECK(jm.at("cost_per_productive_gpu_h_usd") == Approx(total / 2800).epsilon(1e-12));
  // Useful tokens: 2,800 productive GPU-h x 3600 / 128 GPUs / 1 s x 4e6 tokens = 3.15e11.
  const double tokens = 2800.0 * 3600 / 128 / 1 * 4e6;
  CHECK(ledger::retained_tokens(job) == tokens);
  CHECK(jm.at("cost_per_mtok_usd") == jm.at("cost_total_usd") / (tokens / 1e6)); // exactly
  // The states' costs sum to the total.
  CHECK(jm.at("cost_in_productive_usd") + jm.at("cost_in_rework_usd") ==
        Approx(jm.at("cost_total_usd")).epsilon(1e-12));
  CHECK(jm.at("cost_in_waiting_usd") == 0);
  CHECK(std::isnan(jm.at("cost_rent_usd"))); // Rubin has no public rental price

  std::map<std::string, double> cm;
  for (const auto& [name, value] : cost::cluster_cost_metrics(m, r))
    cm[name] = value;
  CHECK(cm.at("cost_total_usd") == c.total_usd());
  CHECK(cm.at("cost_per_mtok_usd") == cm.at("cost_total_usd") / (tokens / 1e6)); // exactly
  CHECK(cm.at("cost_per_gpu_h_usd") == Approx(c.total_usd() / (288 * 24)).epsilon(1e-12));
  CHECK(cm.at("cost_spares_usd") == Approx(c.fixed_usd() * 96 / 288).epsilon(1e-12)); // 96 of 288 GPUs spare
  CHECK(std::isnan(cm.at("cost_per_mtok_served_usd"))); // no services
  CHECK(cm.at("capex_usd") == m.bill.capex_usd());
}

TEST_CASE("cost: the capital recovery factor repays the capital with its interest", "[unit][cost]") {
  // By hand: 1.11^4 = 1.518070, 1.11^5 = 1.685058, 1.11^6 = 1.870415;
  // CRF = 0.11 x g / (g - 1): 4 years 0.322326, 5 years 0.270570, 6 years 0.236377.
  CHECK(cost::capital_recovery_factor(0.11, 4) == Approx(0.322326).epsilon(1e-5));
  CHECK(cost::capital_recovery_factor(0.11, 5) == Approx(0.270570).epsilon(1e-5));
  CHECK(cost::capital_recovery_factor(0.11, 6) == Approx(0.236377).epsilon(1e-5));
  CHECK(cost::capital_recovery_factor(0, 5) == 0.2); // no interest: straight-line
  // An annuity of CRF a year for n years is worth the capital today: Σ CRF / 1.11^k = 1 (k = 1..5).
  double present = 0;
  for (int k = 1; k <= 5; ++k)
    present += cost::capital_recovery_factor(0.11, 5) / std::pow(1.11, k);
  CHECK(present == Approx(1.0).epsilon(1e-12));
  // A year of the BASE design (capex 31.6 M$, no energy): depreciation 31.6/5 = 6.32 M$, financing
  // 31.6 x (0.270570 - 0.2) = 2.230 M$; with cost_of_capital_frac 0 the financing line is 0.
  const auto loaded = tools::load_scenario_text(BASE, "t.json");
  REQUIRE(loaded.scenario);
  bool gpu_priced = false;
  cost::CostModel m = tools::scenario_cost_model(*loaded.scenario, gpu_priced);
  const cost::RunCost year = cost::cluster_run_cost(m, 8760, 0);
  CHECK(year.capex_usd == Approx(6.32e6).epsilon(1e-12));
  CHECK(year.financing_usd == Approx(2.2300e6).epsilon(1e-4));
  m.prices.cost_of_capital_frac = 0;
  CHECK(cost::cluster_run_cost(m, 8760, 0).financing_usd == 0);
  CHECK(errors_with({"cost.cost_of_capital_frac=1.5"}) ==
        "t.json: /cost/cost_of_capital_frac: must be in [0, 1] (got 1.5)\n");
}

namespace {
/// A job's cost metrics on the BASE design with `edits`: the job holds `gpus` GPUs for 24 h, no energy.
std::map<std::string, double> job_costs(const std::vector<std::string>& edits, int gpus) {
  const auto loaded = tools::load_scenario_text(BASE, "t.json", edits);
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  bool gpu_priced = false;
  const cost::CostModel m = tools::scenario_cost_model(*loaded.scenario, gpu_priced);
  ledger::ReplicaResult r;
  r.gpus = m.gpus;
  r.duration = sim::hours_to_ticks(24);
  ledger::JobOutcome job;
  job.gpus = gpus;
  job.gpu_h[static_cast<std::size_t>(workload::JobTime::PRODUCTIVE)] = 24.0 * gpus;
  r.jobs = {job};
  std::map<std::string, double> out;
  for (const auto& [name, value] : cost::job_cost_metrics(m, r, job))
    out[name] = value;
  // The cluster's fixed rate per GPU-hour, for the comparisons below.
  out["rate"] = cost::cluster_run_cost(m, 24, 0).fixed_usd() / (m.gpus * 24.0);
  return out;
}
} // namespace

TEST_CASE("cost: spares and idle capacity are charged to the jobs that hold them", "[unit][cost]") {
  // Crews off, so that the fixed rate per GPU-hour is the same for every cluster size below: (gpu_usd +
  // 100,000 $ of spare parts / 72 GPUs) x CRF / 8760 + 190 kW / 72 GPUs x the facility rate.
  const std::vector<std::string> no_crews = {"cost.staffed_crews=0"};
  auto with = [&](std::vector<std::string> e) {
    e.insert(e.end(), no_crews.begin(), no_crews.end());
    return e;
  };
  // 576 GPUs fill 8 racks of 72 or 9 racks of 64; one spare rack each.
  //   no in-rack spares: 9 racks, N = 648, U = 8 x 72 = 576: N/U = 1.125
  //   8 in-rack spares: 10 racks, N = 720, U = 9 x 64 = 576: N/U = 1.25 (= 72/64 x 10/9)
  const auto none = job_costs(with({"hardware.rack.spare_gpus=0", "cluster.racks=9"}), 576);
  const auto eight = job_costs(with({"cluster.racks=10"}), 576);
  CHECK(none.at("rate") == Approx(eight.at("rate")).epsilon(1e-12));
  CHECK(none.at("cost_per_gpu_h_usd") == Approx(1.125 * none.at("rate")).epsilon(1e-12));
  CHECK(eight.at("cost_per_gpu_h_usd") == Approx(1.25 * eight.at("rate")).epsilon(1e-12));
  // 8 in-rack spares make the job's GPU-hour 1.25 / 1.125 = 10/9 dearer, not cheaper; the spares line is
  // its own: 0.125 and 0.25 of the job's plain share (576 x 24 GPU-h x rate).
  CHECK(eight.at("cost_per_gpu_h_usd") / none.at("cost_per_gpu_h_usd") == Approx(10.0 / 9).epsilon(1e-12));
  CHECK(none.at("cost_spares_usd") == Approx(0.125 * 576 * 24 * none.at("rate")).epsilon(1e-12));
  CHECK(eight.at("cost_spares_usd") == Approx(0.25 * 576 * 24 * eight.at("rate")).epsilon(1e-12));
  CHECK(eight.at("cost_idle_usd") == 0);
  // A job of 600 GPUs occupies ⌈600/64⌉ = 10 racks (640 usable GPUs; 11 racks with the spare rack,
  // N/U = 792/640): it holds the 40 it leaves idle, idle = 40/600 of its plain share, and its spares line
  // covers the whole footprint: 640/600 x (792/640 - 1) = 152/600.
  const auto ragged = job_costs(with({"cluster.racks=11"}), 600);
  const double plain = 600 * 24 * ragged.at("rate");
  CHECK(ragged.at("cost_idle_usd") == Approx(plain * 40 / 600).epsilon(1e-12));
  CHECK(ragged.at("cost_spares_usd") == Approx(plain * 152 / 600).epsilon(1e-12));
  CHECK(ragged.at("cost_total_usd") == Approx(plain * 792 / 600).epsilon(1e-12));
  // A job holding every usable GPU all the time pays the cluster's whole fixed cost: 10 racks, U = 576,
  // 576 x 24 x 1.25 x rate = 720 x 24 x rate.
  CHECK(eight.at("cost_total_usd") == Approx(720 * 24 * eight.at("rate")).epsilon(1e-12));
}

TEST_CASE("cost: the rent line prices the GPU-hours held at a rental price", "[unit][cost]") {
  // GB200: CoreWeave's 42.00 $ per 4-GPU slice-hour = 10.50 $ per GPU-hour by default; the job holds
  // 128 GPUs x 24 h = 3,072 GPU-h: 32,256 $.
  const auto gb200 = job_costs({"hardware.gpu.model=gb200"}, 128);
  CHECK(gb200.at("cost_rent_usd") == Approx(32256.0).epsilon(1e-12));
  CHECK(gb200.at("rent_over_build_frac") == Approx(32256.0 / gb200.at("cost_total_usd")).epsilon(1e-12));
  // Rubin has no public rental price: no line unless the key is given (20 $ x 3,072 = 61,440 $).
  CHECK(std::isnan(job_costs({}, 128).at("cost_rent_usd")));
  CHECK(job_costs({"cost.rent_usd_per_gpu_h=20"}, 128).at("cost_rent_usd") == Approx(61440.0).epsilon(1e-12));
  CHECK(errors_with({"cost.rent_usd_per_gpu_h=-1"}) == "t.json: /cost/rent_usd_per_gpu_h: must be >= 0 (got -1)\n");
}

TEST_CASE("cost: storage capital from the storage tiers, facility power from the hardware table", "[unit][cost]") {
  // Tiers: host memory and local NVMe are in the trays' price (no line); a rack cache of 500,000 GB per
  // rack x 4 racks = 2,000 TB and an object store of 10^8 GB = 100,000 TB: 102,000 TB x 220 $ = 22.44 M$.
  const auto loaded = tools::load_scenario_text(
      BASE, "t.json",
      {R"(storage={"tiers": [{"name": "host", "kind": "host_memory"}, {"name": "nvme", "kind": "local_nvme"},
           {"name": "lota", "kind": "rack_cache"}, {"name": "store", "kind": "object_store"}]})"});
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  bool gpu_priced = false;
  const cost::CostModel m = tools::scenario_cost_model(*loaded.scenario, gpu_priced);
  const cost::BillLine* flash = m.bill.line("flash TB (rack caches, object stores)");
  REQUIRE(flash);
  CHECK(flash->count == 102000);
  CHECK(flash->total_usd == Approx(22.44e6).epsilon(1e-12));
  CHECK(m.bill.area_usd("storage") == flash->total_usd);
  // Facility power per rack: an HGX rack of 4 DGX H100 servers is 4 x 10.2 kW; overriding the GPU's power
  // keeps the servers' other 4.6 kW: 4 x (8 x 1 kW + 4.6 kW) = 50.4 kW.
  const auto hgx = tools::load_scenario_text(
      BASE, "t.json",
      {"hardware={\"gpu\": {\"model\": \"h100-sxm\"}, \"rack\": {\"kind\": \"hgx\", \"nodes_per_rack\": 4}}",
       "operations={\"repair_crews\": 2}"});
  INFO(hgx.errors);
  REQUIRE(hgx.scenario);
  CHECK(cost::rack_facility_power_w(*hgx.scenario->cost, cost_plant(*hgx.scenario)) == Approx(40800.0).epsilon(1e-12));
  Scenario hot = *hgx.scenario;
  hot.hardware.gpu.power_w = 1000;
  CHECK(cost::rack_facility_power_w(*hot.cost, cost_plant(hot)) == Approx(50400.0).epsilon(1e-12));
  hot.cost->rack_power_kw = 30;
  CHECK(cost::rack_facility_power_w(*hot.cost, cost_plant(hot)) == 30000);
}

TEST_CASE("cost: a service pays its GPU-hours and the energy no training job drew", "[unit][cost]") {
  // 288 GPUs x 10 h = 2,880 GPU-h. A job held 1,440 GPU-h and drew 2 MWh of the cluster's 3 MWh; a
  // service held 720 GPU-h and served 1e9 tokens; 720 GPU-h were unallocated. The service's energy:
  // (3 − 2) MWh x 720 / (2,880 − 1,440) = 0.5 MWh.
  const auto loaded = tools::load_scenario_text(BASE, "t.json");
  REQUIRE(loaded.scenario);
  bool gpu_priced = false;
  const cost::CostModel m = tools::scenario_cost_model(*loaded.scenario, gpu_priced);
  ledger::ReplicaResult r;
  r.gpus = 288;
  r.duration = sim::hours_to_ticks(10);
  r.energy_j = 3 * 3.6e9;
  ledger::JobOutcome job;
  job.gpus = 144;
  job.energy_j = 2 * 3.6e9;
  job.gpu_h[static_cast<std::size_t>(workload::JobTime::PRODUCTIVE)] = 1440;
  ledger::ServiceOutcome sv;
  sv.serving_gpu_h = 700;
  sv.down_gpu_h = 20;
  sv.served_tokens = 1e9;
  r.jobs = {job};
  r.services = {sv};
  std::map<std::string, double> sm;
  for (const auto& [name, value] : cost::service_cost_metrics(m, r, sv))
    sm[name] = value;
  const cost::RunCost c = cost::cluster_run_cost(m, 10, 3);
  CHECK(sm.at("cost_energy_usd") == Approx(0.5 * 1.2 * 80.6).epsilon(1e-12));
  CHECK(sm.at("cost_capex_usd") == Approx(c.capex_usd * 720 / 2880).epsilon(1e-12));
  // Its share of the spare capacity: N/U = 288/192 (no domain footprint for a service).
  CHECK(sm.at("cost_spares_usd") == Approx(c.fixed_usd() * 720 / 2880 * 0.5).epsilon(1e-12));
  CHECK(sm.at("cost_per_mtok_served_usd") == sm.at("cost_total_usd") / (1e9 / 1e6));
  CHECK(sm.at("cost_in_serving_usd") + sm.at("cost_in_down_usd") ==
        Approx(sm.at("cost_total_usd")).epsilon(1e-12));
  // A service without a model has no input/output split. With one (1,000/250-token requests: the 1e9
  // output tokens carry 4e9 input tokens; prefill share of instance time f_pf = 0.3): input cost =
  // 0.3 total / 4,000 Mtok, output cost = 0.7 total / 1,000 Mtok, so input cost x 4,000 + output cost x
  // 1,000 = total = cost of the GPU-hours held.
  CHECK(std::isnan(sm.at("input_cost_per_mtok_usd")));
  CHECK(std::isnan(sm.at("output_cost_per_mtok_usd")));
  sv.modelled = true;
  sv.isl = 1000;
  sv.osl = 250;
  sv.prefill_time_frac = 0.3;
  std::map<std::string, double> mm;
  for (const auto& [name, value] : cost::service_cost_metrics(m, r, sv))
    mm[name] = value;
  const double total = mm.at("cost_total_usd");
  CHECK(total == Approx(sm.at("cost_total_usd")).epsilon(1e-12));
  CHECK(total == Approx(mm.at("cost_per_gpu_h_usd") * 720).epsilon(1e-12));
  CHECK(mm.at("input_cost_per_mtok_usd") == Approx(0.3 * total / 4000).epsilon(1e-12));
  CHECK(mm.at("output_cost_per_mtok_usd") == Approx(0.7 * total / 1000).epsilon(1e-12));
  CHECK(mm.at("input_cost_per_mtok_usd") * 4000 + mm.at("output_cost_per_mtok_usd") * 1000 ==
        Approx(total).epsilon(1e-12));
}
