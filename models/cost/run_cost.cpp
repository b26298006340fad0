#include "models/cost/run_cost.hpp"

#include "models/hardware/catalogue.hpp"
#include "models/hardware/layout.hpp"
#include "models/power/spec.hpp"

#include <algorithm>
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
constexpr double W_PER_KW = 1000.0;

double ratio(double a, double b) {
  return b > 0 ? a / b : NaN;
}

double held_gpu_h(const ledger::JobOutcome& job) {
  double sum = 0;
  for (double h : job.gpu_h)
    sum += h;
  return sum;
}

double held_gpu_h(const ledger::ServiceOutcome& sv) {
  return sv.serving_gpu_h + sv.moving_gpu_h + sv.down_gpu_h;
}

/// GPU-hours held by every training job and inference service of the replica.
double all_held_gpu_h(const ledger::ReplicaResult& r) {
  double sum = 0;
  for (const auto& job : r.jobs)
    sum += held_gpu_h(job);
  for (const auto& sv : r.services)
    sum += held_gpu_h(sv);
  return sum;
}

// An entity's cost for `gpu_h` held on `gpus` GPUs (0: no domain footprint, e.g. a service): its share
// of the cluster's fixed lines at the cluster's rate per GPU-hour, the idle GPUs of the NVLink domains it
// occupies, the spare capacity provisioned for all of that, plus its energy.
RunCost share(const CostModel& model, const RunCost& cluster, double cluster_gpu_h, double gpu_h, int gpus,
              double energy_usd) {
  const double f = gpu_h / cluster_gpu_h;
  RunCost c{cluster.capex_usd * f, cluster.financing_usd * f, energy_usd, cluster.facility_usd * f,
            cluster.crews_usd * f};
  const double own_fixed = cluster.fixed_usd() * f;
  const double footprint = gpus > 0 ? static_cast<double>(model.domains_for(gpus)) * model.domain_usable_gpus / gpus : 1.0;
  c.idle_usd = own_fixed * (footprint - 1.0);
  c.spares_usd = own_fixed * footprint * (model.spare_factor() - 1.0);
  return c;
}

void add_lines(Metrics& m, const RunCost& c, double gpu_h) {
  m.emplace_back("cost_capex_usd", c.capex_usd);
  m.emplace_back("cost_financing_usd", c.financing_usd);
  m.emplace_back("cost_energy_usd", c.energy_usd);
  m.emplace_back("cost_facility_usd", c.facility_usd);
  m.emplace_back("cost_crews_usd", c.crews_usd);
  m.emplace_back("cost_spares_usd", c.spares_usd);
  m.emplace_back("cost_idle_usd", c.idle_usd);
  m.emplace_back("cost_opex_usd", c.opex_usd());
  m.emplace_back("cost_total_usd", c.total_usd());
  m.emplace_back("cost_per_gpu_h_usd", ratio(c.total_usd(), gpu_h));
}

// Renting the GPU-hours held instead of building: rent_usd_per_gpu_h × gpu_h (NaN without a price).
void add_rent(Metrics& m, const CostModel& model, const RunCost& c, double gpu_h) {
  const double rent = model.prices.rent_usd_per_gpu_h ? *model.prices.rent_usd_per_gpu_h * gpu_h : NaN;
  m.emplace_back("cost_rent_usd", rent);
  m.emplace_back("rent_over_build_frac", ratio(rent, c.total_usd()));
}

double energy_usd(const CostModel& model, double energy_j) {
  return energy_j / J_PER_MWH * model.prices.pue * model.prices.electricity_usd_per_mwh;
}

} // namespace

double capital_recovery_factor(double rate_frac, double years) {
  if (rate_frac <= 0) return 1.0 / years;
  const double growth = std::pow(1.0 + rate_frac, years);
  return rate_frac * growth / (growth - 1.0);
}

double rack_facility_power_w(const CostSpec& prices, const Plant& s) {
  if (prices.rack_power_kw) return *prices.rack_power_kw * W_PER_KW;
  const hardware::GpuKind* kind = hardware::find_gpu_kind(s.hardware.gpu.model);
  const int rack_gpus = s.hardware.rack.gpus_per_rack();
  if (!kind || kind->system_gpus <= 0) return power::rack_design_power_w(s.power, s.hardware);
  // The published system's power beyond its GPUs, per GPU, plus the scenario's GPU power.
  return rack_gpus * (s.hardware.gpu.power_w + kind->system_base_power_kw() * W_PER_KW / kind->system_gpus);
}

CostModel make_cost_model(const Plant& s, const CostSpec& prices, const fabric::FabricSizing* fabric) {
  const hardware::Layout layout(s.hardware, s.cluster);
  const double fabric_w = fabric ? fabric->fabric_power_w : 0.0;
  CostModel m{prices, Bill(prices, bill_counts(s, fabric)),
              layout.racks() * rack_facility_power_w(prices, s) + fabric_w, layout.gpus()};
  const hardware::RackKind kind = s.hardware.rack.kind;
  const int domains =
      layout.domains() - s.operations.spare_domains(kind) - s.operations.cold_domains(kind);
  m.domain_usable_gpus = layout.domain_usable_gpus();
  m.usable_gpus = std::max(1, domains) * m.domain_usable_gpus;
  return m;
}

RunCost cluster_run_cost(const CostModel& model, double duration_h, double energy_mwh) {
  const CostSpec& p = model.prices;
  const double years = duration_h / H_PER_YEAR;
  const double crf = capital_recovery_factor(p.cost_of_capital_frac, p.depreciation_years);
  RunCost c;
  c.capex_usd = model.bill.capex_usd() * years / p.depreciation_years;
  c.financing_usd = model.bill.capex_usd() * (crf - 1.0 / p.depreciation_years) * years;
  c.facility_usd = p.facility_usd_per_mw_year * (model.it_capacity_w / 1e6) * years;
  c.crews_usd = p.staffed_crews * p.repair_crew_usd_per_h * duration_h;
  c.energy_usd = energy_mwh * p.pue * p.electricity_usd_per_mwh;
  return c;
}

Metrics job_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                         const ledger::JobOutcome& job) {
  const double duration_h = sim::to_hours(r.duration);
  const RunCost cluster = cluster_run_cost(model, duration_h, r.energy_j / J_PER_MWH);
  const double gpu_h = held_gpu_h(job);
  const RunCost c = share(model, cluster, model.gpus * duration_h, gpu_h, job.gpus, energy_usd(model, job.energy_j));
  Metrics m;
  add_lines(m, c, gpu_h);
  add_rent(m, model, c, gpu_h);
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
  const double gpu_h = held_gpu_h(sv);
  const double rest_energy_j = std::max(0.0, r.energy_j - job_energy_j);
  const double energy_j =
      cluster_gpu_h > job_gpu_h ? rest_energy_j * gpu_h / (cluster_gpu_h - job_gpu_h) : 0.0;
  const RunCost c = share(model, cluster, cluster_gpu_h, gpu_h, 0, energy_usd(model, energy_j));
  Metrics m;
  add_lines(m, c, gpu_h);
  add_rent(m, model, c, gpu_h);
  m.emplace_back("cost_per_mtok_served_usd", ratio(c.total_usd(), sv.served_tokens / TOKENS_PER_MTOK));
  // A modelled service's cost split between its input and output tokens by the instance time each takes.
  const double input_tokens = sv.osl > 0 ? sv.served_tokens * sv.isl / sv.osl : 0.0;
  m.emplace_back("input_cost_per_mtok_usd", sv.modelled ? ratio(c.total_usd() * sv.prefill_time_frac,
                                                                input_tokens / TOKENS_PER_MTOK)
                                                        : NaN);
  m.emplace_back("output_cost_per_mtok_usd", sv.modelled ? ratio(c.total_usd() * (1 - sv.prefill_time_frac),
                                                                 sv.served_tokens / TOKENS_PER_MTOK)
                                                         : NaN);
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
  // The spare GPUs' and the idle GPU-time's share of the cluster's fixed cost (in its lines above, not
  // added to its total).
  for (auto& [name, value] : m) {
    if (name == "cost_spares_usd") value = c.fixed_usd() * (1.0 - 1.0 / model.spare_factor());
    if (name == "cost_idle_usd") value = c.fixed_usd() / gpu_h * r.unallocated_gpu_h[0];
  }
  // The cluster rents what its jobs and services held (its spares and idle GPUs are the provider's).
  add_rent(m, model, c, all_held_gpu_h(r));
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
