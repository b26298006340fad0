#include "models/serving/service_timeline.hpp"

#include "models/serving/batch_play.hpp"
#include "sim/rng.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

namespace dcsim::serving {

void LatencyHistogram::add(double value_s, double weight) {
  if (!(weight > 0)) return;
  const double pos = value_s > 0 ? std::log10(value_s / LOW_S) * PER_DECADE : 0.0;
  const int bin = std::clamp(static_cast<int>(std::floor(pos)), 0, BINS - 1);
  weight_[static_cast<std::size_t>(bin)] += weight;
  total_ += weight;
}

double LatencyHistogram::quantile(double q) const {
  if (!(total_ > 0)) return std::numeric_limits<double>::quiet_NaN();
  double cum = 0;
  for (int b = 0; b < BINS; ++b) {
    cum += weight_[static_cast<std::size_t>(b)];
    if (cum >= q * total_) return LOW_S * std::pow(10.0, (b + 0.5) / PER_DECADE);
  }
  return LOW_S * std::pow(10.0, (BINS - 0.5) / PER_DECADE);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t b = 0; b < weight_.size(); ++b)
    weight_[b] += other.weight_[b];
  total_ += other.total_;
}

namespace {
PerfModel make_model(const ServingSpec& spec, const hardware::HardwareSpec& hw) {
  return PerfModel(*find_model_shape(spec.model), spec.instance, gpu_figures(hw), efficiency_for(hw.gpu.model));
}
} // namespace

ServiceTimeline::ServiceTimeline(const ServingSpec& spec, const hardware::HardwareSpec& hardware, std::uint64_t seed)
    : spec_(spec), model_(make_model(spec, hardware)), curve_(model_.curve(spec.isl, spec.osl)),
      cost_(iteration_cost(model_, spec.isl, spec.osl)), seed_(seed) {
  // The curve on serving_capacity's grid (batches 5% apart), so that the fluid pool's capacity is the
  // replica's rate; the deployment caps its batch at the SLO point (the engine's max_num_seqs).
  curve_.points.clear();
  for (double b = 1; b <= curve_.max_batch; b = std::max(b + 1, b * 1.05))
    curve_.points.push_back(model_.point(static_cast<int>(b), spec.isl, spec.osl));
  for (const auto& p : curve_.points)
    if (p.tpot_s <= spec_.tpot_slo_s && p.tpot_s > 0) {
      totals_.prefill_time_frac = (p.tpot_s - p.decode_step_s) / p.tpot_s;
      cost_.max_batch = std::max(1, p.batch);
    }
  if (spec_.disaggregation) {
    disagg_ = disaggregated_figures(model_, spec.isl, spec.osl, spec.tpot_slo_s, *spec_.disaggregation);
    prefill_cost_ = cost_;
    cost_.max_batch = std::max(1, disagg_.decode_batch); // decode instances cap their batch at B_d
    // The input tokens' share of instance time is the prefill pool's: r/(1+r), n_p/n before rounding.
    const double r = spec_.disaggregation->prefill_per_decode;
    totals_.prefill_time_frac = r / (1 + r);
  }
  capacity_per_instance_ =
      fluid_state(curve_, 1, std::numeric_limits<double>::infinity(), spec_.tpot_slo_s).capacity_req_per_s;
  // Windows evaluate the decode step at every iteration: memoised per batch (computed when first needed).
  auto memo = std::make_shared<std::vector<double>>(static_cast<std::size_t>(cost_.max_batch) + 1, -1.0);
  cost_.decode_step_s = [memo, step = cost_.decode_step_s](int decodes) {
    if (decodes < 0 || static_cast<std::size_t>(decodes) >= memo->size()) return step(decodes);
    double& t = (*memo)[static_cast<std::size_t>(decodes)];
    if (t < 0) t = step(decodes);
    return t;
  };
}

double ServiceTimeline::capacity_req_per_s(int instances) const {
  if (spec_.disaggregation) return disaggregated_capacity_req_per_s(disagg_, *spec_.disaggregation, instances);
  return instances > 0 ? instances * capacity_per_instance_ : 0.0; // C_n = n·B_slo/(TPOT(B_slo)·OSL)
}

void ServiceTimeline::fluid(double dt_s, int instances, double demand_req_per_s) {
  if (!(dt_s > 0) || !(demand_req_per_s > 0) || instances <= 0) return;
  if (instances != fluid_instances_ || demand_req_per_s != fluid_demand_) {
    if (spec_.disaggregation) {
      const DisaggregatedLoad l = disaggregated_load(model_, disagg_, *spec_.disaggregation, instances, spec_.isl,
                                                     spec_.osl, demand_req_per_s);
      fluid_state_ = FluidState{l.capacity_req_per_s, l.served_req_per_s, l.tpot_s, l.ttft_s, 0,
                                demand_req_per_s <= l.capacity_req_per_s};
    } else {
      fluid_state_ = fluid_state(curve_, instances, demand_req_per_s, spec_.tpot_slo_s);
    }
    fluid_instances_ = instances;
    fluid_demand_ = demand_req_per_s;
  }
  const FluidState& f = fluid_state_;
  const double served = f.served_req_per_s * dt_s;
  totals_.requests_served += served;
  // Admission control: the pool serves up to its capacity at the point the load runs at, the rest is shed.
  if (f.ttft_s <= spec_.ttft_slo_s && f.tpot_s <= spec_.tpot_slo_s) totals_.requests_met += served;
  ttft_.add(f.ttft_s, served);
  tpot_.add(f.tpot_s, served);
}

void ServiceTimeline::advance(double dt_s, int instances, double demand_req_per_s) {
  if (!(dt_s > 0)) return;
  now_s_ += dt_s;
  totals_.requests_demanded += demand_req_per_s * dt_s;
  if (!window_.open) {
    fluid(dt_s, instances, demand_req_per_s);
    return;
  }
  if (window_.failure && window_.back_s < 0 && instances >= window_.pool) window_.back_s = now_s_ - dt_s;
  const bool out = window_.failure && window_.back_s < 0;
  const int played = window_.sub_pool - (out ? window_.lost : 0); // sub-pool instances serving
  fluid(dt_s, std::max(0, instances - played), std::max(0.0, demand_req_per_s - window_.rate_req_per_s));
}

void ServiceTimeline::open(int instances, double demand_req_per_s, int lost, bool failure) {
  if (window_.open || instances <= 0 || !(demand_req_per_s > 0)) return;
  if (spec_.disaggregation && instances < 2) return; // no pair of pools left to play: the fluid part carries it
  const double per_instance = demand_req_per_s / instances;
  // The played pool starts in its fluid steady state (models/serving/batch_play.hpp): no warm-up.
  double length_s = spec_.window_s, warm_s = 0;
  // A disaggregated window is played request by request from an empty pool (play_requests): it warms up,
  // unmeasured, for one request's lifetime at B_d (prefill, hand-off, OSL decode steps) before the event.
  if (spec_.disaggregation) warm_s = disagg_.prefill_s + disagg_.handoff_s + spec_.osl * disagg_.decode_step_s;
  // A failure's sub-pool keeps a healthy instance beside the struck ones (when the pool has one), so that
  // the retried requests have somewhere to go.
  const int spare = spec_.disaggregation ? 2 : 1; // disaggregated: one instance of each pool at least
  const int min_k = std::min(instances, failure ? lost + spare : spare);
  int k = std::max(min_k, std::min(instances, MAX_WINDOW_INSTANCES));
  while (k > min_k && per_instance * k * (length_s + warm_s) > MAX_WINDOW_REQUESTS)
    --k;
  if (const double n = per_instance * k * (length_s + warm_s); n > MAX_WINDOW_REQUESTS) { // shorter, both parts
    length_s *= MAX_WINDOW_REQUESTS / n;
    warm_s *= MAX_WINDOW_REQUESTS / n;
  }
  window_ = Window{true, failure, now_s_, now_s_ + length_s, warm_s, instances, k, std::min(lost, k),
                   per_instance * k, -1, {}};
  if (failure) window_.strikes.emplace_back(0.0, window_.lost);
}

void ServiceTimeline::on_failure(int instances, double demand_req_per_s, int lost) {
  if (!window_.open) {
    open(instances, demand_req_per_s, std::max(1, lost), true);
    return;
  }
  // A failure during a window: played when the sub-pool keeps a serving instance and has not been whole again.
  const int struck = std::min(std::max(1, lost), window_.sub_pool - window_.lost - (spec_.disaggregation ? 2 : 1));
  if (struck <= 0 || window_.back_s >= 0) return; // the fluid part carries it
  window_.strikes.emplace_back(now_s_ - window_.start_s, struck);
  window_.lost += struck;
  window_.failure = true;
}

void ServiceTimeline::on_demand_step(int instances, double demand_req_per_s) {
  constexpr double MIN_PEAK_GAP_S = 20 * 3600.0; // one peak window a day
  if (window_.open || instances <= 0 || now_s_ - last_peak_s_ < MIN_PEAK_GAP_S) return;
  if (demand_req_per_s < spec_.peak_window_load_frac * capacity_req_per_s(instances)) return;
  last_peak_s_ = now_s_;
  open(instances, demand_req_per_s, 0, false);
}

void ServiceTimeline::close_window() {
  if (!window_.open) return;
  const Window w = window_;
  window_.open = false;
  // The play's clock starts at the warm-up's start (the pool in steady state before the event); the
  // failure or the peak comes at warm_s, and the window's requests are those arriving after it.
  PlaySpec s;
  s.arrival_req_per_s = w.rate_req_per_s;
  const double played_s = w.warm_s + (w.end_s - w.start_s);
  s.requests = std::max(1, static_cast<int>(std::ceil(w.rate_req_per_s * played_s)));
  s.isl = spec_.isl;
  s.osl = spec_.osl;
  s.instances = w.sub_pool;
  s.ttft_slo_s = spec_.ttft_slo_s;
  s.tpot_slo_s = spec_.tpot_slo_s;
  s.measure_from_s = w.warm_s;
  s.seed = sim::stream_seed(seed_, static_cast<std::uint64_t>(totals_.windows), "serving/window");
  const double back_s = w.back_s >= 0 ? w.warm_s + (w.back_s - w.start_s) : 1e300;
  int struck = 0; // the strikes' instances in turn, each out from its strike until the pool is whole again
  for (const auto& [after_s, count] : w.strikes)
    for (int i = 0; i < count; ++i)
      s.outages.push_back(Outage{struck++, w.warm_s + after_s, back_s});
  const auto same = std::find_if(played_.begin(), played_.end(), [&](const Played& p) {
    return p.sub_pool == s.instances && p.lost == w.lost && p.requests == s.requests &&
           p.rate_req_per_s == s.arrival_req_per_s && p.warm_s == w.warm_s && p.back_s == back_s &&
           p.strikes == w.strikes;
  });
  const bool fresh = same == played_.end();
  if (fresh) { // a window like no earlier one: played (identical windows reuse its figures)
    Played p{s.instances, w.lost, s.requests, s.arrival_req_per_s, w.warm_s, back_s, w.strikes, 0, 0, 0, {}, {}};
    if (spec_.disaggregation) {
      const PlayResult r = play_disaggregated(s, w);
      p.completed = r.completed;
      p.met = r.met;
      p.retried = r.retried;
      for (std::size_t i = 0; i < r.ttft_samples_s.size(); ++i) {
        p.ttft.add(r.ttft_samples_s[i], 1);
        p.tpot.add(r.tpot_samples_s[i], 1);
      }
    } else {
      const BatchPlayResult r = play_batches(s, cost_, true);
      p.completed = r.completed;
      p.met = r.met;
      p.retried = r.retried;
      for (const auto& [x, n] : r.ttft_s)
        p.ttft.add(x, n);
      for (const auto& [x, n] : r.tpot_s)
        p.tpot.add(x, n);
    }
    played_.push_back(std::move(p));
  }
  const Played& p = fresh ? played_.back() : *same;
  totals_.windows += 1;
  totals_.requests_served += p.completed;
  totals_.requests_met += p.met;
  totals_.retried_requests += p.retried;
  totals_.window_requests += p.completed;
  ttft_.merge(p.ttft);
  tpot_.merge(p.tpot);
}

PlayResult ServiceTimeline::play_disaggregated(PlaySpec s, const Window& w) {
  const PoolSplit split = split_pool(w.sub_pool, spec_.disaggregation->prefill_per_decode);
  s.disaggregated = true;
  s.prefill_instances = split.prefill;
  s.decode_instances = split.decode;
  s.kv_transfer_s_per_token = disagg_.handoff_s / spec_.isl;
  s.keep_samples = true;
  // Each struck instance is a prefill one with probability n_p/k, else a decode one; a pool keeps one serving.
  sim::Rng pick(seed_, static_cast<std::uint64_t>(totals_.windows), "serving/disagg_strike");
  int next_prefill = 0, next_decode = 0;
  std::vector<Outage> outages;
  for (Outage o : s.outages) {
    const bool prefill_left = next_prefill < split.prefill - 1, decode_left = next_decode < split.decode - 1;
    if (!prefill_left && !decode_left) break; // a pool smaller than its strikes: the fluid part carries the rest
    const bool prefill = prefill_left && (!decode_left || pick.uniform01() * w.sub_pool < split.prefill);
    o.instance = prefill ? next_prefill++ : split.prefill + next_decode++;
    outages.push_back(o);
  }
  s.outages = std::move(outages);
  return play_requests(s, cost_, prefill_cost_);
}

ServingTotals ServiceTimeline::totals() const {
  ServingTotals t = totals_;
  t.ttft_p50_s = ttft_.quantile(0.5);
  t.ttft_p99_s = ttft_.quantile(0.99);
  t.tpot_p50_s = tpot_.quantile(0.5);
  t.tpot_p99_s = tpot_.quantile(0.99);
  return t;
}

} // namespace dcsim::serving
