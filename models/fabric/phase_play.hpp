// Concurrent jobs' communication phases on one network: the phase-level play and the duty-cycle model.
//
// A job's step is a cycle [local, fabric phase 1, ..., fabric phase P] (the step model's terms, all
// exposed and summed: step_model.hpp). Local time (compute, NVLink, latencies, optimizer) is fixed; a
// fabric phase k is a set of flows (PhaseFlows) that takes t_k seconds when the job is alone on the
// network. With other jobs' flows in flight, its pace is τ_alone / τ(rates), where τ is the phase's
// lockstep time at the max-min rates of every flow in flight (max_min.hpp):
//   τ(rates) = max over members r of w_r · max_{f of r} bytes_f / rate_f
// (the slowest member sets the pace of a collective, as in collective_flows.hpp). Lockstep: a member
// cannot run ahead of the slowest, so each flow is capped at bytes_f·w_r/τ and the sharing solved
// again (LOCKSTEP_ROUNDS times, alone and shared alike), which hands the share a member cannot use to
// the other jobs. A phase's factor is its mean shared duration over t_k; one job alone has factor 1.
//
// Phase-level play (the reference): a fluid event loop over the component's jobs. Each job starts at
// an offset o into its own cycle; at each event (a phase begins or ends) the rates of the flows in
// flight are solved (cached by the set of phases in flight: periodic jobs repeat sets); every job
// advances; the next event is the earliest phase end. After `warmup` cycles per job, `measured`
// cycles give each phase's mean duration and the mean step.
// Offsets (the `phase_overlap` key, FABRIC-SHARING.md §3.3):
//   aligned      o_j = 0: every job's fabric phases start together (worst case for equal jobs)
//   interleaved  job i's fabric phases start when job i − 1's end (CASSINI-like stacking):
//                o_i = (local_i − Σ_{k<i} F_k) mod T_i, F_k a job's fabric time alone, T_i its cycle
//   random       o_j uniform in [0, T_j), from a seeded stream
// Two identical jobs alone filling one link, comm share c, offset δ (|δ| < c) stay locked at that
// offset, each cycle extended by c − δ; aligned gives 1 + c, interleaved (c ≤ 1/2) gives 1, and the
// mean over uniform δ is 1 + c² (∫_{−c}^{c} (c − |δ|) dδ).
//
// Duty-cycle model (the fast one, `duty_cycle`): no play. Each competitor's phase m of job i is in
// flight a share d_im = t_im / T_i of the time, independently (random offsets); to first order
//   factor_jk = 1 + Σ_{i≠j} Σ_m d_im · (τ_jk(with phase im) / τ_jk(alone) − 1)
// one solve per unordered pair of phases (both τ read from it, the lower job's phase first); a pair
// whose phases cross no common link is not solved (a max-min over disjoint links is two independent
// ones: τ stays alone); pairs may be kept across calls (PairTaus, by the jobs' identities). For the
// two identical jobs above it gives 1 + c·1 on the comm
// phase, a step of 1 + c², the random play's mean exactly; three or more jobs overlapping at once are
// counted pairwise (first order in the duties). Units: seconds, bytes, bytes/s.
#pragma once

#include "models/fabric/max_min.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

namespace dcsim::fabric {

/// Lockstep capping rounds (see above); the same alone and shared, so a job alone has factor 1.
inline constexpr int LOCKSTEP_ROUNDS = 3;

/// The flows of one fabric phase over the network's links.
struct PhaseFlows {
  std::vector<MaxMinFlow> flows;
  std::vector<double> bytes;         ///< per flow: bytes it moves per τ
  std::vector<int> member;           ///< per flow: its member (index into member_weight)
  std::vector<double> member_weight; ///< w_r
  /// τ at `rates` (the flows' rates, in order); 0 when no flow runs (all blocked).
  double tau(const std::vector<double>& rates, std::size_t first = 0) const;
};

struct PhaseJob {
  double local_s = 0;
  std::vector<PhaseFlows> phases;
  std::vector<double> phase_alone_s; ///< t_k
  /// Who the job is, for PairTaus (empty: its pairs are not kept across calls): equal identities
  /// mean the same phases' flows, in the same order, on links of the same capacities.
  std::vector<std::uint64_t> identity;
  double cycle_s() const;
  double fabric_s() const; ///< Σ t_k
};

enum class PhaseOverlap { ALIGNED, INTERLEAVED, RANDOM, DUTY_CYCLE };
std::string_view phase_overlap_name(PhaseOverlap overlap);

struct SharingResult {
  std::vector<std::vector<double>> phase_factor; ///< [job][phase]: shared duration / alone
  std::vector<double> step_s;                    ///< mean shared cycle per job
};

/// Pairs of phases solved together, kept across duty-cycle calls: (first job's identity, its phase,
/// second job's identity, its phase) -> the two τ of taus({first, second}). A max-min's rates do not
/// depend on how the links are numbered, only on the flows (in order) and the capacities, so a pair
/// found again in another component reads the same τ. The owner clears it when capacities or routes
/// change; it clears itself when it holds MAX_KEPT pairs.
class PairTaus {
public:
  static constexpr std::size_t MAX_KEPT = 1 << 16;
  const std::array<double, 2>* find(const std::vector<std::uint64_t>& key) const;
  void keep(std::vector<std::uint64_t> key, std::array<double, 2> taus);
  void clear() { kept_.clear(); }
  long long hits() const { return hits_; }

private:
  std::map<std::vector<std::uint64_t>, std::array<double, 2>> kept_;
  mutable long long hits_ = 0;
};

class PhaseSharing {
public:
  /// `capacity_bytes_per_s`: every link's capacity (the flows' link indices point into it).
  explicit PhaseSharing(std::vector<double> capacity_bytes_per_s) : capacity_(std::move(capacity_bytes_per_s)) {}

  /// τ of every given phase while all of them are in flight together (lockstep capping included).
  std::vector<double> taus(const std::vector<const PhaseFlows*>& active) const;
  /// The rates (bytes/s) of every flow of the given phases in flight together after the lockstep
  /// capping, in order (phase by phase): what taus() reads its τ from.
  std::vector<double> rates(const std::vector<const PhaseFlows*>& active) const;

  /// Offsets of `overlap` (random: from `seed`), s into each job's own cycle.
  static std::vector<double> offsets(const std::vector<PhaseJob>& jobs, PhaseOverlap overlap, std::uint64_t seed);
  /// The phase-level play from `offsets_s`.
  SharingResult play(const std::vector<PhaseJob>& jobs, const std::vector<double>& offsets_s, int warmup = 2,
                     int measured = 8) const;
  /// The duty-cycle model; pairs of jobs that both have an identity are read from and kept in `kept`.
  SharingResult duty_cycle(const std::vector<PhaseJob>& jobs, PairTaus* kept = nullptr) const;
  /// The model of `overlap` (DUTY_CYCLE, or the play from its offsets).
  SharingResult share(const std::vector<PhaseJob>& jobs, PhaseOverlap overlap, std::uint64_t seed,
                      PairTaus* kept = nullptr) const;
  long long solves() const { return solves_; }

private:
  std::vector<double> capacity_;
  mutable long long solves_ = 0;
  std::vector<double> lockstep(const std::vector<const PhaseFlows*>& active, std::vector<double>* rates_out) const;
};

} // namespace dcsim::fabric
