// What a run costs: the bill's capex depreciated over the run, and opex (electricity, facility, repair
// crews), per cluster, training job and inference service; cost per GPU-hour, per productive GPU-hour,
// per million useful training tokens and per million served tokens; every ledger state's GPU-hours
// priced (docs/cost.md). Engine-free: from the replica's result (models/ledger/replica_result.hpp).
//
// Cluster, over a run of T hours on N GPUs (N·T GPU-hours):
//   capex      = bill capex × T ÷ (depreciation_years × 8760)           (straight-line depreciation)
//   facility   = facility_usd_per_mw_year × IT capacity (MW) × T ÷ 8760
//                IT capacity = racks × rack design power (power/spec.hpp) + fabric power (switches, optics)
//   crews      = staffed_crews × repair_crew_usd_per_h × T
//   energy     = IT energy (MWh, the power model's energy_mwh) × pue × electricity_usd_per_mwh
//   opex = energy + facility + crews;  total = capex + opex
// A training job or an inference service pays for the GPU-hours G it held: capex, facility and crews
// at the cluster's rate per GPU-hour (each × G ÷ (N·T)), plus its energy: a job's own (energy_kwh,
// its GPUs and their share of rack base power) × pue × price; a service's share of the energy that
// no training job drew (cluster energy − Σ job energy), split by GPU-hours among services and
// unallocated GPUs (the power model gives both idle power). The GPU-time that no job or service held
// (idle, repair, spare) is paid by the cluster only.
//   cost_per_gpu_h             = total ÷ G (cluster: ÷ N·T)
//   cost_per_productive_gpu_h  = total ÷ productive GPU-hours
//   cost_per_mtok              = total ÷ (retained tokens ÷ 10^6) (ledger::retained_tokens; cluster: the
//                                cluster's total over every training job's tokens, as energy_per_token_j)
//   cost_per_mtok_served       = total ÷ (served tokens ÷ 10^6) (cluster: total over all services' tokens)
//   cost_in_<state>            = GPU-hours in the state × cost_per_gpu_h: the states' costs sum to total
//   cost_to_train_usd          = a job's total once its work (work_h, or target_tokens) is done: it held
//                                its GPUs until then, failures and recovery included; undefined when not
//                                done by the end of the run
#pragma once

#include "models/cost/bill.hpp"
#include "models/cost/spec.hpp"
#include "models/ledger/replica_result.hpp"

namespace dcsim {
struct Scenario;
}

namespace dcsim::cost {

/// A design's prices and bill, fixed for a run.
struct CostModel {
  CostSpec prices;
  Bill bill;
  double it_capacity_w = 0;
  int gpus = 0;
};

/// The cost model of a scenario priced at `prices`; `fabric` is the sizing of its fabric (nullptr without).
CostModel make_cost_model(const Scenario& scenario, const CostSpec& prices,
                          const fabric::FabricSizing* fabric);

/// The cluster's cost lines over a run of `duration_h` with `energy_mwh` of IT energy.
struct RunCost {
  double capex_usd = 0, energy_usd = 0, facility_usd = 0, crews_usd = 0;
  double opex_usd() const { return energy_usd + facility_usd + crews_usd; }
  double total_usd() const { return capex_usd + opex_usd(); }
};
RunCost cluster_run_cost(const CostModel& model, double duration_h, double energy_mwh);

ledger::Metrics job_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                                 const ledger::JobOutcome& job);
ledger::Metrics service_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r,
                                     const ledger::ServiceOutcome& service);
ledger::Metrics cluster_cost_metrics(const CostModel& model, const ledger::ReplicaResult& r);

} // namespace dcsim::cost
