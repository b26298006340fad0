#include "models/fabric/phase_play.hpp"

#include "sim/rng.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace dcsim::fabric {

namespace {
std::size_t at(int i) { return static_cast<std::size_t>(i); }
constexpr long long MAX_EVENTS = 1000000; // a guard: a play of a few jobs and cycles needs thousands
} // namespace

std::string_view phase_overlap_name(PhaseOverlap overlap) {
  switch (overlap) {
  case PhaseOverlap::ALIGNED: return "aligned";
  case PhaseOverlap::INTERLEAVED: return "interleaved";
  case PhaseOverlap::RANDOM: return "random";
  case PhaseOverlap::DUTY_CYCLE: return "duty_cycle";
  }
  return "?";
}

double PhaseFlows::tau(const std::vector<double>& rates, std::size_t first) const {
  std::vector<double> member_s(member_weight.size(), 0.0);
  bool any = false;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const double r = rates[first + f];
    if (!(r > 0)) continue; // blocked: not a rate
    any = true;
    member_s[at(member[f])] = std::max(member_s[at(member[f])], bytes[f] / r);
  }
  if (!any) return 0.0;
  double t = 0.0;
  for (std::size_t m = 0; m < member_s.size(); ++m)
    t = std::max(t, member_s[m] * member_weight[m]);
  return t;
}

double PhaseJob::cycle_s() const { return local_s + fabric_s(); }
double PhaseJob::fabric_s() const {
  double s = 0;
  for (double t : phase_alone_s)
    s += t;
  return s;
}

std::vector<double> PhaseSharing::taus(const std::vector<const PhaseFlows*>& active) const {
  return lockstep(active, nullptr);
}

std::vector<double> PhaseSharing::rates(const std::vector<const PhaseFlows*>& active) const {
  std::vector<double> out;
  lockstep(active, &out);
  return out;
}

std::vector<double> PhaseSharing::lockstep(const std::vector<const PhaseFlows*>& active, std::vector<double>* rates_out) const {
  ++solves_;
  std::vector<MaxMinFlow> flows;
  std::vector<std::size_t> first;
  for (const PhaseFlows* p : active) {
    first.push_back(flows.size());
    flows.insert(flows.end(), p->flows.begin(), p->flows.end());
  }
  std::vector<double> tau(active.size(), 0.0);
  std::vector<char> capped(flows.size(), 0);
  for (int round = 0; round <= LOCKSTEP_ROUNDS; ++round) {
    const std::vector<double> rates = max_min_rates(capacity_, flows);
    for (std::size_t a = 0; a < active.size(); ++a)
      tau[a] = active[a]->tau(rates, first[a]);
    if (round == LOCKSTEP_ROUNDS) {
      if (rates_out) *rates_out = rates;
      break;
    }
    // A member cannot run ahead of the slowest: a flow faster than the pace needs (and any flow capped
    // before) is capped at what the pace needs; flows at the pace stay free to take freed shares.
    for (std::size_t a = 0; a < active.size(); ++a) {
      if (!(tau[a] > 0)) continue;
      const PhaseFlows& p = *active[a];
      for (std::size_t f = 0; f < p.flows.size(); ++f) {
        const std::size_t g = first[a] + f;
        const double need = p.bytes[f] * p.member_weight[at(p.member[f])] / tau[a];
        if (capped[g] || rates[g] > need * (1 + 1e-9)) {
          capped[g] = 1;
          flows[g].cap_bytes_per_s = need;
        }
      }
    }
  }
  return tau;
}

std::vector<double> PhaseSharing::offsets(const std::vector<PhaseJob>& jobs, PhaseOverlap overlap, std::uint64_t seed) {
  std::vector<double> o(jobs.size(), 0.0);
  if (overlap == PhaseOverlap::INTERLEAVED) {
    double stacked = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const double T = jobs[j].cycle_s();
      o[j] = T > 0 ? std::fmod(std::fmod(jobs[j].local_s - stacked, T) + T, T) : 0.0;
      stacked += jobs[j].fabric_s();
    }
  } else if (overlap == PhaseOverlap::RANDOM) {
    sim::Rng rng(seed);
    for (std::size_t j = 0; j < jobs.size(); ++j)
      o[j] = rng.uniform01() * jobs[j].cycle_s();
  }
  return o;
}

namespace {

/// A job's place in its cycle: stage 0 is local, stage k ≥ 1 fabric phase k − 1; `left` is seconds
/// (local) or the share of the phase still to go (fabric).
struct Cursor {
  int stage = 0;
  double left = 0;
  int cycles = 0;          ///< completed
  double cycle_start = 0;  ///< date the current cycle began
  double stage_start = 0;
  std::vector<double> phase_sum; ///< measured phase durations
  double step_sum = 0;
};

/// Moves a cursor to stage `stage` (skipping empty stages), counting completed cycles.
void enter(const PhaseJob& job, Cursor& c, int stage, double now, int warmup, int last) {
  const int stages = 1 + static_cast<int>(job.phases.size());
  for (int guard = 0; guard <= stages; ++guard) {
    if (stage >= stages) {
      if (c.cycles >= warmup && c.cycles < last) c.step_sum += now - c.cycle_start;
      ++c.cycles;
      c.cycle_start = now;
      stage = 0;
    }
    const double len = stage == 0 ? job.local_s : job.phase_alone_s[at(stage - 1)];
    if (len > 0) {
      c.stage = stage;
      c.left = stage == 0 ? job.local_s : 1.0;
      c.stage_start = now;
      return;
    }
    ++stage;
  }
  throw std::invalid_argument("PhaseSharing: a job with an empty cycle");
}

} // namespace

SharingResult PhaseSharing::play(const std::vector<PhaseJob>& jobs, const std::vector<double>& offsets_s, int warmup,
                                 int measured) const {
  if (warmup < 1 || measured < 1) throw std::invalid_argument("PhaseSharing::play: warmup and measured must be >= 1");
  const int last = warmup + measured;
  const std::size_t J = jobs.size();
  std::vector<std::vector<double>> alone_tau(J);
  for (std::size_t j = 0; j < J; ++j)
    for (const PhaseFlows& p : jobs[j].phases)
      alone_tau[j].push_back(taus({&p})[0]);
  std::vector<Cursor> cur(J);
  for (std::size_t j = 0; j < J; ++j) { // start each job `offset` into its cycle, as if alone so far
    cur[j].phase_sum.assign(jobs[j].phases.size(), 0.0);
    enter(jobs[j], cur[j], 0, 0.0, warmup, last);
    double skip = offsets_s[j];
    while (skip > 0) {
      const double len = cur[j].stage == 0 ? cur[j].left : cur[j].left * jobs[j].phase_alone_s[at(cur[j].stage - 1)];
      if (skip < len) {
        cur[j].left -= cur[j].stage == 0 ? skip : skip / jobs[j].phase_alone_s[at(cur[j].stage - 1)];
        break;
      }
      skip -= len;
      enter(jobs[j], cur[j], cur[j].stage + 1, 0.0, warmup, last);
    }
    cur[j].cycles = 0; // the partial first cycle is warm-up
    cur[j].step_sum = 0;
    cur[j].cycle_start = 0;
    cur[j].stage_start = 0;
  }
  std::map<std::vector<int>, std::vector<double>> cache; // stages in flight -> τ per job (0: local)
  double now = 0;
  auto done = [&] {
    return std::all_of(cur.begin(), cur.end(), [&](const Cursor& c) { return c.cycles >= last; });
  };
  for (long long events = 0; !done(); ++events) {
    if (events > MAX_EVENTS) throw std::logic_error("PhaseSharing::play: too many events");
    std::vector<int> key(J);
    for (std::size_t j = 0; j < J; ++j)
      key[j] = cur[j].stage;
    auto it = cache.find(key);
    if (it == cache.end()) {
      std::vector<const PhaseFlows*> active;
      for (std::size_t j = 0; j < J; ++j)
        if (key[j] > 0) active.push_back(&jobs[j].phases[at(key[j] - 1)]);
      const std::vector<double> t = taus(active);
      std::vector<double> per_job(J, 0.0);
      for (std::size_t j = 0, a = 0; j < J; ++j)
        if (key[j] > 0) per_job[j] = t[a++];
      it = cache.emplace(key, std::move(per_job)).first;
    }
    std::vector<double> speed(J, 1.0); // local: seconds per second; fabric: share of the phase per second
    double dt = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < J; ++j) {
      if (cur[j].stage > 0) {
        const auto k = at(cur[j].stage - 1);
        const double tau = it->second[j] > 0 ? it->second[j] : alone_tau[j][k];
        speed[j] = alone_tau[j][k] / (tau * jobs[j].phase_alone_s[k]);
      }
      dt = std::min(dt, cur[j].left / speed[j]);
    }
    now += dt;
    for (std::size_t j = 0; j < J; ++j) {
      cur[j].left -= dt * speed[j];
      if (cur[j].left > 1e-12 * (cur[j].stage == 0 ? std::max(1.0, jobs[j].local_s) : 1.0)) continue;
      if (cur[j].stage > 0 && cur[j].cycles >= warmup && cur[j].cycles < last) cur[j].phase_sum[at(cur[j].stage - 1)] += now - cur[j].stage_start;
      enter(jobs[j], cur[j], cur[j].stage + 1, now, warmup, last);
    }
  }
  SharingResult r;
  for (std::size_t j = 0; j < J; ++j) {
    std::vector<double> f;
    for (std::size_t k = 0; k < jobs[j].phases.size(); ++k)
      f.push_back(jobs[j].phase_alone_s[k] > 0 ? cur[j].phase_sum[k] / measured / jobs[j].phase_alone_s[k] : 1.0);
    r.phase_factor.push_back(std::move(f));
    r.step_s.push_back(cur[j].step_sum / measured);
  }
  return r;
}

namespace {

/// The links a phase's flows cross, ascending and each once.
std::vector<int> links_of(const PhaseFlows& phase) {
  std::vector<int> out;
  for (const MaxMinFlow& f : phase.flows)
    out.insert(out.end(), f.links.begin(), f.links.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Whether two ascending link lists share a link.
bool meet(const std::vector<int>& a, const std::vector<int>& b) {
  for (std::size_t i = 0, k = 0; i < a.size() && k < b.size();) {
    if (a[i] == b[k]) return true;
    a[i] < b[k] ? ++i : ++k;
  }
  return false;
}

} // namespace

const std::array<double, 2>* PairTaus::find(const std::vector<std::uint64_t>& key) const {
  const auto it = kept_.find(key);
  if (it == kept_.end()) return nullptr;
  ++hits_;
  return &it->second;
}

void PairTaus::keep(std::vector<std::uint64_t> key, std::array<double, 2> taus) {
  if (kept_.size() >= MAX_KEPT) kept_.clear();
  kept_.emplace(std::move(key), taus);
}

SharingResult PhaseSharing::duty_cycle(const std::vector<PhaseJob>& jobs, PairTaus* kept) const {
  SharingResult r;
  // A competitor's phase that crosses none of a phase's links leaves its τ as alone: the pair is not
  // solved (a max-min over disjoint link sets is two independent ones).
  std::vector<std::vector<std::vector<int>>> links(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (const PhaseFlows& p : jobs[j].phases)
      links[j].push_back(links_of(p));
  // One solve per pair of phases, the lower job's phase first; each side reads its own τ from it.
  std::map<std::array<std::size_t, 4>, std::array<double, 2>> paired;
  auto tau_with = [&](std::size_t j, std::size_t k, std::size_t i, std::size_t m) {
    const bool first = j < i;
    const std::array<std::size_t, 4> pos = first ? std::array{j, k, i, m} : std::array{i, m, j, k};
    auto it = paired.find(pos);
    if (it == paired.end()) {
      const PhaseJob &a = jobs[pos[0]], &b = jobs[pos[2]];
      std::vector<std::uint64_t> key; // (|id_a|, id_a, k_a, |id_b|, id_b, k_b)
      if (kept && !a.identity.empty() && !b.identity.empty()) {
        key.push_back(a.identity.size());
        key.insert(key.end(), a.identity.begin(), a.identity.end());
        key.push_back(pos[1]);
        key.push_back(b.identity.size());
        key.insert(key.end(), b.identity.begin(), b.identity.end());
        key.push_back(pos[3]);
      }
      const std::array<double, 2>* known = key.empty() ? nullptr : kept->find(key);
      std::array<double, 2> t{};
      if (known) {
        t = *known;
      } else {
        const std::vector<double> v = taus({&a.phases[pos[1]], &b.phases[pos[3]]});
        t = {v[0], v[1]};
        if (!key.empty()) kept->keep(std::move(key), t);
      }
      it = paired.emplace(pos, t).first;
    }
    return it->second[first ? 0 : 1];
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::vector<double> f;
    double step = jobs[j].local_s;
    for (std::size_t k = 0; k < jobs[j].phases.size(); ++k) {
      const PhaseFlows& mine = jobs[j].phases[k];
      const double alone = taus({&mine})[0];
      double factor = 1.0;
      for (std::size_t i = 0; i < jobs.size() && alone > 0; ++i) {
        if (i == j) continue;
        const double T = jobs[i].cycle_s();
        for (std::size_t m = 0; m < jobs[i].phases.size(); ++m) {
          if (!(jobs[i].phase_alone_s[m] > 0) || !(T > 0) || !meet(links[j][k], links[i][m])) continue;
          const double with = tau_with(j, k, i, m);
          if (with > 0) factor += jobs[i].phase_alone_s[m] / T * (with / alone - 1.0);
        }
      }
      f.push_back(factor);
      step += jobs[j].phase_alone_s[k] * factor;
    }
    r.phase_factor.push_back(std::move(f));
    r.step_s.push_back(step);
  }
  return r;
}

SharingResult PhaseSharing::share(const std::vector<PhaseJob>& jobs, PhaseOverlap overlap, std::uint64_t seed,
                                  PairTaus* kept) const {
  if (overlap == PhaseOverlap::DUTY_CYCLE) return duty_cycle(jobs, kept);
  return play(jobs, offsets(jobs, overlap, seed));
}

} // namespace dcsim::fabric
