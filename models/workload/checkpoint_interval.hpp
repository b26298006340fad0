// Checkpoint interval theory.
//
// With failures at rate λ = 1/M over the job (exponential), blocking checkpoint writes of δ seconds and
// a compute interval τ between checkpoints:
//   Young (1974):  τ = √(2δM)
//   Daly (2006), higher-order estimate of the optimum:
//       τ = √(2δM) · [1 + ⅓·√(δ/(2M)) + (1/9)·(δ/(2M))] − δ    for δ < 2M,   τ = M otherwise.
// J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22 (2006).
//
// Renewal-theory goodput of dcsim's recovery model (the reference the simulation is tested against):
// a failure is detected D seconds after it happens; failures during detection extend it (the job waits
// until every failed GPU is detected), so a detection phase lasts until a failure-free gap of D:
//       E[det] = (e^{λD} − 1)/λ
// then a restart of R seconds, which a failure sends back to detection:
//       E[rec] = E[det] + (1/λ + E[det]) · (e^{λR} − 1)
// A segment of τ + δ must run uninterrupted; each attempt that fails costs the time lost plus E[rec]:
//       E[segment] = (1/λ + E[rec]) · (e^{λ(τ+δ)} − 1)
// and goodput = τ / E[segment]. Its maximum over τ solves e^{λ(τ+δ)}(1 − λτ) = 1, independent of D
// and R, which Daly's formula approximates. With the failure clock paused during recovery
// (`/failures/clock` paused_during_recovery: no failure strikes a recovering job's GPUs), E[rec] = D + R.
// Restarts that a failure interrupts, per interruption of training: e^{λR} − 1 (the restart attempts are
// Bernoulli trials that succeed with probability e^{−λR}); 0 with the clock paused. (With several failure modes of different detect_s, D is
// not one number and the formula is an approximation.)
#pragma once

namespace dcsim::workload {

double young_interval_s(double write_s, double mtbf_s);
double daly_interval_s(double write_s, double mtbf_s);

struct RenewalInputs {
  double rate_per_s = 0; ///< λ, failures per second over the job's GPUs
  double detect_s = 0;   ///< D
  double restart_s = 0;  ///< R
  double interval_s = 0; ///< τ, compute between checkpoints
  double write_s = 0;    ///< δ, blocking checkpoint write
  bool paused_during_recovery = false; ///< no failure strikes the job while it detects or restarts
};
/// Expected long-run goodput (productive ÷ wall) of the recovery model above.
double renewal_goodput(const RenewalInputs& in);
/// The τ maximising renewal_goodput (exact, by solving e^{λ(τ+δ)}(1 − λτ) = 1).
double optimal_interval_s(double write_s, double mtbf_s);

} // namespace dcsim::workload
