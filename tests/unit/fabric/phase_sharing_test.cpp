// Engine-free sharing of one network by several jobs: the weighted max-min solver and the phase-level
// play of concurrent jobs' communication phases, against results worked by hand (each derived in its
// TEST_CASE). The match with SimGrid's own sharing on the fabric platform is in max_min_simgrid_test.cpp.
#include "models/fabric/max_min.hpp"
#include "models/fabric/phase_play.hpp"

#include "sim/rng.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim::fabric;

namespace {

/// One phase of `flows` flows, flow i through links {first_link + i, shared}, one member per flow,
/// bytes per τ equal to `bytes` (w = 1).
PhaseFlows phase_through(int flows, int first_link, int shared, double bytes) {
  PhaseFlows p;
  for (int i = 0; i < flows; ++i) {
    p.flows.push_back(MaxMinFlow{{first_link + i, shared}});
    p.bytes.push_back(bytes);
    p.member.push_back(i);
    p.member_weight.push_back(1.0);
  }
  return p;
}

PhaseJob job_of(double local_s, PhaseFlows phase, double alone_s) {
  PhaseJob j;
  j.local_s = local_s;
  j.phases.push_back(std::move(phase));
  j.phase_alone_s.push_back(alone_s);
  return j;
}

} // namespace

TEST_CASE("max-min: progressive filling gives the textbook shares", "[fabric][sharing]") {
  // Links 0 (cap 10) and 1 (cap 4). Flow a on {0}, b on {0, 1}, c on {1}: link 1 fills first at 2 each
  // (b = c = 2), then a takes the rest of link 0: 8.
  const auto r = max_min_rates({10, 4}, {{{0}}, {{0, 1}}, {{1}}});
  CHECK(r[0] == Approx(8));
  CHECK(r[1] == Approx(2));
  CHECK(r[2] == Approx(2));
  // A cap below the fair share frees the rest: c capped at 1 leaves 3 to b, then a gets 7.
  const auto capped = max_min_rates({10, 4}, {{{0}}, {{0, 1}}, {{1}, 1.0, 1.0}});
  CHECK(capped[2] == Approx(1));
  CHECK(capped[1] == Approx(3));
  CHECK(capped[0] == Approx(7));
  // A link that is off blocks its flows (0) and leaves the others their share.
  const auto off = max_min_rates({10, 0}, {{{0}}, {{0, 1}}});
  CHECK(off[0] == Approx(10));
  CHECK(off[1] == 0);
}

TEST_CASE("max-min: a flow standing for m flows weighs m", "[fabric][sharing]") {
  // Random networks: a flow of weight m gets exactly what m unit flows on its route get together, and
  // every other flow gets the same rate either way.
  dcsim::sim::Rng rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const int L = 2 + static_cast<int>(rng.below(5));
    std::vector<double> cap;
    for (int l = 0; l < L; ++l)
      cap.push_back(1 + 99 * rng.uniform01());
    std::vector<MaxMinFlow> merged, split;
    std::vector<int> copies;
    for (int f = 0; f < 6; ++f) {
      MaxMinFlow flow;
      for (int l = 0; l < L; ++l)
        if (rng.bernoulli(0.5)) flow.links.push_back(l);
      if (flow.links.empty()) flow.links.push_back(0);
      const int m = 1 + static_cast<int>(rng.below(4));
      copies.push_back(m);
      flow.weight = m;
      merged.push_back(flow);
      flow.weight = 1;
      for (int c = 0; c < m; ++c)
        split.push_back(flow);
    }
    const auto rm = max_min_rates(cap, merged), rs = max_min_rates(cap, split);
    std::size_t s = 0;
    for (std::size_t f = 0; f < merged.size(); ++f) {
      double sum = 0;
      for (int c = 0; c < copies[f]; ++c)
        sum += rs[s++];
      CHECK(rm[f] == Approx(sum).epsilon(1e-9));
    }
  }
}

TEST_CASE("two jobs whose rings share one oversubscribed bundle each get the max-min share", "[fabric][sharing]") {
  // Access links 0-5 of 100 B/s, bundle 6 of 120 B/s. Job A: 2 flows (access 0, 1), job B: 4 flows
  // (access 2-5), all through the bundle. Alone, A's flows get min(100, 120/2) = 60 and B's
  // min(100, 120/4) = 30; together every flow gets 120/6 = 20, so A's comm takes 60/20 = 3 times as
  // long and B's 30/20 = 1.5 times. With A's comm 0.5 s and B's 1 s alone, both last 1.5 s shared,
  // start together (aligned, equal local 1 s) and end together: each step is exactly 1 + 1.5 = 2.5 s.
  const PhaseSharing net({100, 100, 100, 100, 100, 100, 120});
  std::vector<PhaseJob> jobs{job_of(1.0, phase_through(2, 0, 6, 1.0), 0.5), job_of(1.0, phase_through(4, 2, 6, 1.0), 1.0)};
  const SharingResult r = net.share(jobs, PhaseOverlap::ALIGNED, 0);
  CHECK(r.phase_factor[0][0] == Approx(3.0).epsilon(1e-9));
  CHECK(r.phase_factor[1][0] == Approx(1.5).epsilon(1e-9));
  CHECK(r.step_s[0] == Approx(2.5).epsilon(1e-9));
  CHECK(r.step_s[1] == Approx(2.5).epsilon(1e-9));
  // Each alone: factor 1 and its own step, whatever the overlap model.
  for (PhaseOverlap o : {PhaseOverlap::ALIGNED, PhaseOverlap::RANDOM, PhaseOverlap::DUTY_CYCLE}) {
    const SharingResult alone = net.share({jobs[0]}, o, 3);
    CHECK(alone.phase_factor[0][0] == 1.0);
    CHECK(alone.step_s[0] == Approx(1.5).epsilon(1e-12));
  }
}

TEST_CASE("two jobs of communication share c slow each other by c aligned and not at all interleaved",
          "[fabric][sharing]") {
  // Two identical jobs, step 1 s alone, comm share c on one flow each through a shared link that one
  // flow alone fills (access 100, link 100): together each gets 50, so overlapping comm runs at half speed.
  //   aligned: both comm phases coincide every step: c → 2c, step 1 + c.
  //   interleaved: B's comm starts when A's ends; with c ≤ 1/2 it ends before A's next comm: step 1.
  //   random offset δ: the pair locks at δ and each step gains c − |δ| when |δ| < c: the mean over
  //   uniform δ is ∫_{−c}^{c} (c − |δ|) dδ = c², and the duty-cycle model gives 1 + c·(2 − 1) on the
  //   comm phase, i.e. the same 1 + c², exactly.
  const PhaseSharing net({100, 100, 100});
  for (double c : {0.1, 0.3, 0.5}) {
    std::vector<PhaseJob> jobs{job_of(1 - c, phase_through(1, 0, 2, 1.0), c), job_of(1 - c, phase_through(1, 1, 2, 1.0), c)};
    const SharingResult aligned = net.share(jobs, PhaseOverlap::ALIGNED, 0);
    CHECK(aligned.step_s[0] == Approx(1 + c).epsilon(1e-9));
    CHECK(aligned.step_s[1] == Approx(1 + c).epsilon(1e-9));
    const SharingResult inter = net.share(jobs, PhaseOverlap::INTERLEAVED, 0);
    CHECK(inter.step_s[0] == Approx(1.0).epsilon(1e-9));
    CHECK(inter.step_s[1] == Approx(1.0).epsilon(1e-9));
    const SharingResult duty = net.share(jobs, PhaseOverlap::DUTY_CYCLE, 0);
    CHECK(duty.step_s[0] == Approx(1 + c * c).epsilon(1e-12));
    // The phase-level play over a uniform grid of offsets δ = (i + 1/2)/N: its mean step is 1 + c²
    // up to the grid's error (the extension c − |δ| is piecewise linear: midpoint sums are exact
    // except on the two cells holding |δ| = c, at most 2·(1/N)²/4... here N = 400).
    const int N = 400;
    double mean = 0;
    for (int i = 0; i < N; ++i) {
      const SharingResult p = net.play(jobs, {0.0, (i + 0.5) / N});
      mean += p.step_s[0] / N;
    }
    CHECK(mean == Approx(1 + c * c).epsilon(1e-5));
  }
}

TEST_CASE("the duty-cycle model against the phase-level play on unequal jobs", "[fabric][sharing]") {
  // Job A: comm 0.3 of a 1 s step on 2 flows; job B: comm 0.2 of a 0.7 s step on 1 flow; shared link 90
  // under access 100. Alone A's flows get 45, B's flow 90; together 30 each (A ×1.5, B ×3). The play's
  // mean over random offsets (64 seeded draws) and the duty-cycle model's first-order step agree within
  // 3% of the step: the duty-cycle model counts each overlap independently of the others.
  const PhaseSharing net({100, 100, 100, 90});
  std::vector<PhaseJob> jobs{job_of(0.7, phase_through(2, 0, 3, 1.0), 0.3), job_of(0.5, phase_through(1, 2, 3, 1.0), 0.2)};
  const SharingResult duty = net.duty_cycle(jobs);
  // Duty-cycle by hand: A: 1 + (0.2/0.7)·(1.5 − 1); B: 1 + (0.3/1)·(3 − 1).
  CHECK(duty.phase_factor[0][0] == Approx(1 + 0.2 / 0.7 * 0.5).epsilon(1e-12));
  CHECK(duty.phase_factor[1][0] == Approx(1 + 0.3 * 2).epsilon(1e-12));
  std::vector<double> mean(2, 0.0);
  const int draws = 64;
  for (int s = 0; s < draws; ++s) {
    const SharingResult p = net.share(jobs, PhaseOverlap::RANDOM, 1000 + static_cast<unsigned>(s));
    mean[0] += p.step_s[0] / draws;
    mean[1] += p.step_s[1] / draws;
  }
  CHECK(std::abs(mean[0] - duty.step_s[0]) / duty.step_s[0] < 0.03);
  CHECK(std::abs(mean[1] - duty.step_s[1]) / duty.step_s[1] < 0.03);
}

TEST_CASE("duty cycle: each pair solved once, disjoint pairs not at all, kept pairs read back the same", "[fabric][sharing]") {
  // Links 0-5 of 100 (access), 6 and 7 of 90 (bundles). Job A: 2 flows through bundle 6, comm 0.3 of
  // a 1 s step; job B: 1 flow of twice the bytes through bundle 6, comm 0.2 of 0.7 s (the unequal pair
  // above: 30 per flow together, A ×1.5 and B ×3 when they overlap, at τ 1/30 and 2/30: a side that
  // read the other's τ would be off); job C: 1 flow through bundle 7, meeting neither. By hand: A 1 + (0.2/0.7)
  // ·0.5, B 1 + 0.3·2, C 1. Solves: one alone per phase (3) and one for the pair A-B (C's pairs cross
  // no common link): 4, where a solve per ordered pair would take 3 + 6 = 9.
  std::vector<PhaseJob> jobs{job_of(0.7, phase_through(2, 0, 6, 1.0), 0.3), job_of(0.5, phase_through(1, 2, 6, 2.0), 0.2),
                             job_of(0.5, phase_through(1, 3, 7, 1.0), 0.2)};
  const PhaseSharing fresh({100, 100, 100, 100, 100, 100, 90, 90});
  const SharingResult plain = fresh.duty_cycle(jobs);
  CHECK(fresh.solves() == 4);
  CHECK(plain.phase_factor[0][0] == Approx(1 + 0.2 / 0.7 * 0.5).epsilon(1e-12));
  CHECK(plain.phase_factor[1][0] == Approx(1 + 0.3 * 2).epsilon(1e-12));
  CHECK(plain.phase_factor[2][0] == 1.0);
  // The same jobs with identities and kept pairs: the same factors, bit for bit. Then A and B in
  // another call, their links numbered otherwise (bundle 0, access 1-3): the pair is read back (no
  // solve beyond the two alone), with the same factors; B before A is another pair (solved).
  jobs[0].identity = {1};
  jobs[1].identity = {2};
  jobs[2].identity = {3};
  PairTaus kept;
  const SharingResult first = PhaseSharing({100, 100, 100, 100, 100, 100, 90, 90}).duty_cycle(jobs, &kept);
  CHECK(first.phase_factor == plain.phase_factor);
  CHECK(kept.hits() == 0);
  std::vector<PhaseJob> again{job_of(0.7, phase_through(2, 1, 0, 1.0), 0.3), job_of(0.5, phase_through(1, 3, 0, 2.0), 0.2)};
  again[0].identity = {1};
  again[1].identity = {2};
  const PhaseSharing renumbered({90, 100, 100, 100});
  const SharingResult second = renumbered.duty_cycle(again, &kept);
  CHECK(renumbered.solves() == 2);
  CHECK(kept.hits() == 1);
  CHECK(second.phase_factor[0] == plain.phase_factor[0]);
  CHECK(second.phase_factor[1] == plain.phase_factor[1]);
  std::swap(again[0], again[1]);
  const PhaseSharing swapped({90, 100, 100, 100});
  const SharingResult third = swapped.duty_cycle(again, &kept);
  CHECK(swapped.solves() == 3);
  CHECK(kept.hits() == 1);
  CHECK(third.phase_factor[0][0] == Approx(plain.phase_factor[1][0]).epsilon(1e-12));
  CHECK(third.phase_factor[1][0] == Approx(plain.phase_factor[0][0]).epsilon(1e-12));
}

TEST_CASE("a checkpoint burst on a converged link lengthens a job's exposed communication", "[fabric][sharing]") {
  // Job: comm 0.4 s alone on 2 flows through a 100 B/s bundle (access 100): 50 each. A checkpoint
  // drain of 3 flows on the same bundle, in flight throughout (a phase with no local time): 5 flows
  // share 100, 20 each, so the job's comm takes 50/20 = 2.5 times as long: +0.6 s of exposed
  // communication per step, step 1 s → 1.6 s.
  const PhaseSharing net({100, 100, 100, 100, 100, 100});
  std::vector<PhaseJob> jobs{job_of(0.6, phase_through(2, 0, 5, 1.0), 0.4), job_of(0.0, phase_through(3, 2, 5, 1.0), 1.0)};
  const SharingResult r = net.share(jobs, PhaseOverlap::ALIGNED, 0);
  CHECK(r.phase_factor[0][0] == Approx(2.5).epsilon(1e-9));
  CHECK(r.step_s[0] == Approx(1.6).epsilon(1e-9));
}

TEST_CASE("lockstep: a member's unused share goes to the other job", "[fabric][sharing]") {
  // Job A: one member with two flows, one through link 0 (cap 10, alone) and one through the shared
  // link 2 (cap 100); its pace is set by the 10 B/s flow (τ = 1/10 for 1 byte each), so its flow on
  // link 2 needs only 10. Job B: one flow through link 2. Max-min alone would give A's link-2 flow
  // 50; capped at what the lockstep uses, B gets 90 and A is not slowed.
  PhaseFlows a;
  a.flows = {MaxMinFlow{{0}}, MaxMinFlow{{2}}};
  a.bytes = {1.0, 1.0};
  a.member = {0, 0};
  a.member_weight = {1.0};
  const PhaseSharing net({10, 100, 100});
  PhaseFlows b = phase_through(1, 1, 2, 1.0);
  const std::vector<double> t = net.taus({&a, &b});
  CHECK(t[0] == Approx(0.1).epsilon(1e-12));
  CHECK(t[1] == Approx(1.0 / 90).epsilon(1e-12));
}
