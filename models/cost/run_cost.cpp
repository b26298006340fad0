#include "models/cost/run_cost.hpp"

#include "models/hardware/layout.hpp"
#include "models/power/spec.hpp"
#include "models/scenario.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace dcsim::cost {

using ledger::Metrics;
using workload::JobTime;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double J_PER_MWH = 3.6e9;
constexpr double TOKENS_PER_MTOK = 1e6;

double ratio(double a, double b) {
  return b > 0 ? a / b : NaN;
}

// An entity's share of the cluster's fixed lines for `gpu_h` held, plus its energy.
RunCost share(const RunCost& cluster, double cluster_gpu_h, double gpu_h, double energy_usd) {
  const double f = gpu_h / cluster_gpu_h;
  return RunCost{cluster.capex_usd * f, energy_usd, cluster.facility_usd * f, cluster.crews_usd * f};
}

void add_lines(Metrics& m, const RunCost& c, double gpu_h) {
  m.emplace_back("cost_capex_usd", c.capex_usd);
  m.emplace_back("cost_energy_usd", c.energy_usd);
  m.emplace_back("cost_facility_usd", c.facility_usd);
  m.emplace_back("cost_crews_usd", c.crews_usd);
  m.emplace_back("cost_opex_usd", c.opex_usd());
  m.emplace_back("cost_total_usd", c.total_usd());
  m.emplace_back("cost_per_gpu_h_usd", ratio(c.total_usd(), gpu_h));
}

double energy_usd(const CostModel& model, double energy_j) {
  return energy_j / J_PER_MWH * model.prices.pue * model.prices.electricity_usd_per_mwh;
}

double held_gpu_h(const ledger::JobOutcome& job) {
  double sum = 0;
  for (double h : job.gpu_h)
    sum += h;
  return sum;
}

} // namespace

CostModel make_cost_model(const Scenario& s, const CostSpec& prices, const fabric::FabricSizing* fabric) {
  const hardware::Layout layout(s.hardware, s.cluster);
  const double fabric_w = fabric ? fabric->fabric_power_w : 0.0;
  return CostModel{prices, Bill(prices, bill_counts(s, fabric)),
                   layout.racks() * power::rack_design_power_w(s.power, s.hardware) + fabric_w,
                   layout.gpus()};
}

RunCost cluster_run_cost(const CostModel& model, double duration_h, double energy_mwh) {
  const CostSpec& p = model.prices;
  RunCost c;
  c.capex_usd = model.bill.capex_usd() * duration_h / (p.depreciation_years * H_PER_YEAR);
  c.facility_usd = p.facility_usd_per_mw_year * (model.it_capacity_w / 1e6) * duration_h / H_PER_YEAR;
  c.crews_usd = p.staffed_crews * p.repair_crew_usd_per_h * duration_h;
  c.energy_usd = energy_mwh * p.pue * p.electricity_usd_per_mwh;
  return c;
}

Metrics job_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                         const ledger::JobOutcome& job) {
  const double duration_h = sim::to_hours(r.duration);
  const RunCost cluster = cluster_run_cost(model, duration_h, r.energy_j / J_PER_MWH);
  const double gpu_h = held_gpu_h(job);
  const RunCost c = share(cluster, model.gpus * duration_h, gpu_h, energy_usd(model, job.energy_j));
  Metrics m;
  add_lines(m, c, gpu_h);
  m.emplace_back("cost_per_productive_gpu_h_usd",
                 ratio(c.total_usd(), ledger::job_state_gpu_h(job, JobTime::PRODUCTIVE)));
  m.emplace_back("cost_per_mtok_usd", ratio(c.total_usd(), ledger::retained_tokens(job) / TOKENS_PER_MTOK));
  m.emplace_back("cost_to_train_usd", job.completed_at >= 0 ? c.total_usd() : NaN);
  const double per_gpu_h = ratio(c.total_usd(), gpu_h);
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s)
    m.emplace_back("cost_in_" + std::string(workload::job_time_name(static_cast<JobTime>(s))) + "_usd",
                   ledger::job_state_gpu_h(job, static_cast<JobTime>(s)) * per_gpu_h);
  return m;
}

Metrics service_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                             const ledger::ServiceOutcome& sv) {
  const double duration_h = sim::to_hours(r.duration);
  const double cluster_gpu_h = model.gpus * duration_h;
  const RunCost cluster = cluster_run_cost(model, duration_h, r.energy_j / J_PER_MWH);
  // The energy no training job drew, shared by GPU-hours among services and unallocated GPUs.
  double job_energy_j = 0, job_gpu_h = 0;
  for (const auto& job : r.jobs) {
    job_energy_j += job.energy_j;
    job_gpu_h += held_gpu_h(job);
  }
  const double gpu_h = sv.serving_gpu_h + sv.moving_gpu_h + sv.down_gpu_h;
  const double rest_energy_j = std::max(0.0, r.energy_j - job_energy_j);
  const double energy_j =
      cluster_gpu_h > job_gpu_h ? rest_energy_j * gpu_h / (cluster_gpu_h - job_gpu_h) : 0.0;
  const RunCost c = share(cluster, cluster_gpu_h, gpu_h, energy_usd(model, energy_j));
  Metrics m;
  add_lines(m, c, gpu_h);
  m.emplace_back("cost_per_mtok_served_usd", ratio(c.total_usd(), sv.served_tokens / TOKENS_PER_MTOK));
  const double per_gpu_h = ratio(c.total_usd(), gpu_h);
  const double held[] = {sv.serving_gpu_h, sv.moving_gpu_h, sv.down_gpu_h};
  const auto states = ledger::service_ledger_states();
  for (std::size_t i = 0; i < states.size(); ++i)
    m.emplace_back("cost_in_" + states[i] + "_usd", held[i] * per_gpu_h);
  return m;
}

Metrics cluster_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r) {
  const double duration_h = sim::to_hours(r.duration);
  const double gpu_h = model.gpus * duration_h;
  const RunCost c = cluster_run_cost(model, duration_h, r.energy_j / J_PER_MWH);
  double productive_gpu_h = 0, tokens = 0, served = 0;
  bool any_tokens = false;
  for (const auto& job : r.jobs) {
    productive_gpu_h += ledger::job_state_gpu_h(job, JobTime::PRODUCTIVE);
    if (const double t = ledger::retained_tokens(job); !std::isnan(t)) {
      tokens += t;
      any_tokens = true;
    }
  }
  for (const auto& sv : r.services)
    served += sv.served_tokens;
  Metrics m;
  m.emplace_back("capex_usd", model.bill.capex_usd());
  add_lines(m, c, gpu_h);
  m.emplace_back("cost_per_productive_gpu_h_usd", ratio(c.total_usd(), productive_gpu_h));
  m.emplace_back("cost_per_mtok_usd", any_tokens ? ratio(c.total_usd(), tokens / TOKENS_PER_MTOK) : NaN);
  m.emplace_back("cost_per_mtok_served_usd",
                 r.services.empty() ? NaN : ratio(c.total_usd(), served / TOKENS_PER_MTOK));
  const double per_gpu_h = ratio(c.total_usd(), gpu_h);
  const auto states = ledger::cluster_ledger_states();
  const auto values = ledger::cluster_ledger_gpu_h(r);
  for (std::size_t i = 0; i < states.size(); ++i)
    m.emplace_back("cost_in_" + states[i] + "_usd", values[i] * per_gpu_h);
  return m;
}

} // namespace dcsim::cost
