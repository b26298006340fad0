// What a run costs: the bill's capex depreciated over the run, and opex (electricity, facility, repair
// crews), per cluster, training job and inference service; cost per GPU-hour, per productive GPU-hour,
// per million useful training tokens and per million served tokens; every ledger state's GPU-hours
// priced (docs/cost.md). Engine-free: from the replica's result (models/ledger/replica_result.hpp).
//
// Cluster, over a run of T hours on N GPUs (N·T GPU-hours), n = depreciation_years, r = cost_of_capital_frac:
//   capex      = bill capex × T ÷ (n × 8760)                            (straight-line depreciation)
//   financing  = bill capex × (CRF − 1/n) × T ÷ 8760,  CRF = r (1+r)^n ÷ ((1+r)^n − 1)  (capital recovery
//                factor: capex × CRF a year repays the capital and its interest over n years; r = 0: 1/n)
//   facility   = facility_usd_per_mw_year × IT capacity (MW) × T ÷ 8760
//                IT capacity = racks × rack_power_kw (default: the published system power of the GPU kind,
//                docs/hardware.md, scaled to the rack) + fabric power (switches, optics)
//   crews      = staffed_crews × repair_crew_usd_per_h × T
//   energy     = IT energy (MWh, the power model's energy_mwh) × pue × electricity_usd_per_mwh
//   opex = energy + facility + crews;  fixed = capex + financing + facility + crews;  total = fixed + energy
// A training job or an inference service pays for the GPU-hours G it held: capex, financing, facility
// and crews at the cluster's rate per GPU-hour (each × G ÷ (N·T)), plus its energy: a job's own
// (energy_kwh, its GPUs and their share of rack base power) × pue × price; a service's share of the energy
// that no training job drew (cluster energy − Σ job energy), split by GPU-hours among services and
// unallocated GPUs (the power model gives both idle power). Spares and idle capacity are charged to the
// jobs that hold them, as two lines of their own (own = fixed × G ÷ (N·T), the entity's plain share):
//   idle   = own × (D·u ÷ g − 1)        a job of g GPUs occupies D = ⌈g ÷ u⌉ NVLink domains of u usable GPUs
//                                       and holds the D·u − g it leaves idle there (services: 0)
//   spares = own × D·u ÷ g × (N ÷ U − 1) the spare capacity provisioned per usable GPU: U = N less in-rack
//                                       spares, spare racks and cold spare racks (or servers, hgx)
// A job holding every usable GPU for the whole run pays the cluster's whole fixed cost; 8 in-rack spares
// per 72-GPU rack make a job's GPU-hour at least 72/64 dearer. Healthy GPUs of domains no job occupies
// stay with the cluster (its cost_in_idle_usd). On the cluster the two lines are the spare GPUs' and the
// idle GPU-time's share of its fixed cost (already in its other lines, not added to its total).
//   rent       = rent_usd_per_gpu_h × G (cluster: × H): renting the GPU-hours held instead of building
//   rent_over_build_frac = rent ÷ total (> 1: building is cheaper)
//   cost_per_gpu_h             = total ÷ G (cluster: ÷ N·T)
//   cost_per_productive_gpu_h  = total ÷ productive GPU-hours
//   cost_per_mtok              = total ÷ (retained tokens ÷ 10^6) (ledger::retained_tokens; cluster: the
//                                cluster's total over every training job's tokens, as energy_per_token_j)
//   cost_per_mtok_served       = total ÷ (served tokens ÷ 10^6) (cluster: total over all services' tokens)
//   input_cost_per_mtok        = total × f_pf ÷ (input tokens ÷ 10^6), output_cost_per_mtok = total × (1 − f_pf)
//                                ÷ (output tokens ÷ 10^6): a service described by a model (`serving`), f_pf the
//                                prefill share of instance time at its SLO point (TPOT − decode step) ÷ TPOT,
//                                input tokens = served output tokens × ISL ÷ OSL; so input cost × input tokens
//                                + output cost × output tokens = total
//   cost_in_<state>            = GPU-hours in the state × cost_per_gpu_h: the states' costs sum to total
//   cost_to_train_usd          = a job's total once its work (work_h, or target_tokens) is done: it held
//                                its GPUs until then, failures and recovery included; undefined when not
//                                done by the end of the run
#pragma once

#include "models/cost/bill.hpp"
#include "models/cost/spec.hpp"
#include "models/ledger/replica_result.hpp"

namespace dcsim::cost {

/// A design's prices and bill, fixed for a run.
struct CostModel {
  CostSpec prices;
  Bill bill;
  double it_capacity_w = 0;
  int gpus = 0;               ///< N: every GPU of the cluster
  int usable_gpus = 0;        ///< U: the GPUs jobs can hold (N less in-rack spares, spare and cold racks)
  int domain_usable_gpus = 0; ///< u: usable GPUs of one NVLink domain

  /// N ÷ U: GPUs provisioned per GPU a job can hold.
  double spare_factor() const { return usable_gpus > 0 ? static_cast<double>(gpus) / usable_gpus : 1.0; }
  /// NVLink domains a job of `job_gpus` occupies.
  int domains_for(int job_gpus) const { return (job_gpus + domain_usable_gpus - 1) / domain_usable_gpus; }
};

/// The cost model of a design priced at `prices`; `fabric` is the sizing of its fabric (nullptr without).
CostModel make_cost_model(const Plant& plant, const CostSpec& prices,
                          const fabric::FabricSizing* fabric);

/// The cluster's cost lines over a run of `duration_h` with `energy_mwh` of IT energy.
struct RunCost {
  double capex_usd = 0, financing_usd = 0, energy_usd = 0, facility_usd = 0, crews_usd = 0;
  double spares_usd = 0, idle_usd = 0; ///< a job's or service's share of the GPU-time nobody held
  double opex_usd() const { return energy_usd + facility_usd + crews_usd; }
  double fixed_usd() const { return capex_usd + financing_usd + facility_usd + crews_usd; }
  double total_usd() const { return capex_usd + financing_usd + opex_usd() + spares_usd + idle_usd; }
};
/// Capital recovery factor: the share of a capital paid each year to repay it with interest at
/// `rate_frac` over `years` (1 ÷ years at rate 0).
double capital_recovery_factor(double rate_frac, double years);
/// The IT capacity one rack adds to the facility charge, W (CostSpec::rack_power_kw or the hardware table).
double rack_facility_power_w(const CostSpec& prices, const Plant& plant);
RunCost cluster_run_cost(const CostModel& model, double duration_h, double energy_mwh);

ledger::Metrics job_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                                 const ledger::JobOutcome& job);
ledger::Metrics service_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                                     const ledger::ServiceOutcome& service);
ledger::Metrics cluster_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r);

} // namespace dcsim::cost
