#include "models/serving/batch_play.hpp"

#include "sim/rng.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>

namespace dcsim::serving {

namespace {

constexpr double NEVER = std::numeric_limits<double>::infinity();

/// `count` requests arrived over [a0, a1], member j at a0 + (j + ½)(a1 − a0)/count.
struct Group {
  int count = 0;
  double a0 = 0, a1 = 0;
  bool measured = false;
  /// The first `m` members; *this keeps the rest.
  Group take_front(int m) {
    const double cut = a0 + (a1 - a0) * m / count;
    Group front{m, a0, cut, measured};
    count -= m;
    a0 = cut;
    return front;
  }
};

struct Decoding {
  Group group;
  long long finish_iteration = 0;
  double first_token_s = 0;
};

struct Instance {
  std::deque<Group> prefilling;  ///< admitted, first token not yet emitted (FCFS)
  std::deque<Decoding> decoding; ///< finish iterations non-decreasing (fixed osl, FCFS)
  int prefill_count = 0, decode_count = 0;
  int head_done = 0;             ///< prompt tokens prefilled of the head request
  long long iterations = 0;
  int decodes = 0, prefill_tokens = 0; ///< of the iteration in progress
  double end_s = NEVER;
  bool busy = false, down = false;
  int outages = 0;
};

struct Change {
  double at_s;
  bool failure;
  int instance;
};

class BatchPlay {
public:
  BatchPlay(const PlaySpec& spec, const IterationCost& cost)
      : spec_(spec), cost_(cost), arrivals_(spec.seed, 0, "serving/arrivals"),
        instances_(static_cast<std::size_t>(spec.instances)) {
    result_.tpot_s.reserve(static_cast<std::size_t>(spec.requests) / 2);
    result_.ttft_s.reserve(static_cast<std::size_t>(spec.requests));
    auto outage = [&](const Outage& o) {
      if (o.instance < 0 || o.instance >= spec.instances)
        throw std::invalid_argument("play_batches: an outage names no instance of the pool");
      changes_.push_back({o.at_s, true, o.instance});
      if (o.back_s < 1e300) changes_.push_back({std::max(o.at_s, o.back_s), false, o.instance});
    };
    if (spec.fail_instance_at_s >= 0)
      outage(Outage{0, spec.fail_instance_at_s, spec.fail_instance_at_s + spec.repair_s});
    for (const Outage& o : spec.outages)
      outage(o);
    std::stable_sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.at_s < b.at_s; });
  }

  /// Every instance in the fluid steady state of its share of the arrivals (see the header).
  void start_steady() {
    const double rate = spec_.arrival_req_per_s / spec_.instances;
    const int steps = spec_.osl - 1;
    double t = cost_.decode_step_s(1), a = 0;
    for (int i = 0; i < 50; ++i) {
      a = rate * t;
      const double decodes = std::min<double>(a * steps, cost_.max_batch);
      const double prefill = std::min(a * spec_.isl, std::max(0.0, cost_.chunk_tokens - decodes));
      const double next = (decodes >= 1 ? cost_.decode_step_s(static_cast<int>(std::lround(decodes))) : 0.0) +
                          prefill * cost_.prefill_s_per_token;
      if (!(next > 0) || std::abs(next - t) <= 1e-9 * t) break;
      t = next;
    }
    if (steps <= 0 || !(a > 0)) return;
    const double per_step = std::min(a, static_cast<double>(cost_.max_batch) / steps);
    for (Instance& in : instances_) {
      double carry = 0;
      for (int j = 1; j <= steps; ++j) { // finishing at iteration j: first token osl − 1 − j iterations ago
        carry += per_step;
        const int c = static_cast<int>(carry);
        carry -= c;
        if (c == 0) continue;
        const double first = -(steps - j + 1) * t;
        in.decoding.push_back(Decoding{Group{c, first, first, false}, j, first});
        in.decode_count += c;
      }
    }
  }

  BatchPlayResult run(bool steady_start) {
    if (steady_start) start_steady();
    next_arrival_ = arrivals_.exponential(spec_.arrival_req_per_s);
    start_all();
    for (;;) {
      int next = -1; // the instance whose iteration ends first
      for (std::size_t i = 0; i < instances_.size(); ++i)
        if (instances_[i].busy && (next < 0 || instances_[i].end_s < instances_[static_cast<std::size_t>(next)].end_s))
          next = static_cast<int>(i);
      const double t_it = next >= 0 ? instances_[static_cast<std::size_t>(next)].end_s : NEVER;
      const double t_change = change_ < changes_.size() ? changes_[change_].at_s : NEVER;
      // An arrival is an event of its own only while an instance waits for work; otherwise arrivals are
      // collected at the next iteration end (they could not start anything earlier).
      const double t_arrival = idle_instance() ? next_arrival_ : NEVER;
      const double t = std::min({t_it, t_change, t_arrival});
      if (t == NEVER) break;
      now_ = t;
      collect();
      if (t_change <= t_it && t_change <= t_arrival) {
        const Change c = changes_[change_++];
        if (c.failure)
          fail(c.instance);
        else
          repair(c.instance);
      } else if (t_it <= t_arrival) {
        end_iteration(next);
      } else {
        start_all();
      }
    }
    result_.duration_s = end_s_;
    return std::move(result_);
  }

private:
  const PlaySpec& spec_;
  const IterationCost& cost_;
  sim::Rng arrivals_;
  std::vector<Instance> instances_;
  std::vector<Change> changes_;
  std::size_t change_ = 0;
  std::deque<Group> queue_;
  double now_ = 0, next_arrival_ = 0, end_s_ = 0;
  int arrived_ = 0;
  BatchPlayResult result_;

  bool idle_instance() const {
    return std::any_of(instances_.begin(), instances_.end(), [](const Instance& in) { return !in.busy && !in.down; });
  }

  /// Poisson(mean) by Knuth's product of uniforms, in parts of mean ≤ 200 (e^−200 stays a normal double).
  int poisson(double mean) {
    int n = 0;
    for (; mean > 0; mean -= 200) {
      const double limit = std::exp(-std::min(mean, 200.0));
      for (double p = arrivals_.uniform01(); p > limit; p *= arrivals_.uniform01())
        ++n;
    }
    return n;
  }

  /// Queues a group arriving over [a0, a1], split at measure_from_s.
  void enqueue(int count, double a0, double a1) {
    if (count <= 0) return;
    Group g{count, a0, a1, a0 >= spec_.measure_from_s};
    if (a0 < spec_.measure_from_s && a1 > spec_.measure_from_s) { // members placed before the cut are warm-up
      const double w = (a1 - a0) / count;
      const int before = std::clamp(static_cast<int>(std::ceil((spec_.measure_from_s - a0) / w - 0.5)), 0, count);
      if (before > 0) queue_.push_back(g.take_front(before));
      g.measured = true;
    }
    if (g.count > 0) queue_.push_back(g);
  }

  /// The arrivals up to now: the next one exactly, the others of (next, now] as one Poisson group.
  void collect() {
    if (next_arrival_ > now_ || arrived_ >= spec_.requests) return;
    const int left = spec_.requests - arrived_;
    const int more = std::min(left - 1, poisson(spec_.arrival_req_per_s * (now_ - next_arrival_)));
    enqueue(1, next_arrival_, next_arrival_);
    enqueue(more, next_arrival_, now_);
    arrived_ += 1 + more;
    result_.arrived = arrived_;
    next_arrival_ = arrived_ < spec_.requests ? now_ + arrivals_.exponential(spec_.arrival_req_per_s) : NEVER;
  }

  void start_all() {
    for (std::size_t i = 0; i < instances_.size(); ++i)
      start(instances_[i]);
  }

  void start(Instance& in) {
    if (in.busy || in.down) return;
    for (int room = cost_.max_batch - in.prefill_count - in.decode_count; room > 0 && !queue_.empty();) {
      Group& g = queue_.front();
      const int m = std::min(room, g.count);
      in.prefilling.push_back(g.take_front(m));
      in.prefill_count += m;
      room -= m;
      if (g.count == 0) queue_.pop_front();
    }
    in.decodes = in.decode_count;
    const long long budget = static_cast<long long>(cost_.chunk_tokens) - in.decodes;
    const long long waiting = static_cast<long long>(in.prefill_count) * spec_.isl - in.head_done;
    in.prefill_tokens = budget > 0 ? static_cast<int>(std::min(budget, waiting)) : 0;
    if (in.decodes == 0 && in.prefill_tokens == 0) return;
    in.busy = true;
    in.end_s = now_ + (in.decodes > 0 ? cost_.decode_step_s(in.decodes) : 0.0) + in.prefill_tokens * cost_.prefill_s_per_token;
  }

  void end_iteration(int index) {
    Instance& in = instances_[static_cast<std::size_t>(index)];
    in.busy = false;
    ++in.iterations;
    if (in.decodes > 0)
      while (!in.decoding.empty() && in.decoding.front().finish_iteration <= in.iterations) {
        finish(in.decoding.front());
        in.decode_count -= in.decoding.front().group.count;
        in.decoding.pop_front();
      }
    long long tokens = in.head_done + static_cast<long long>(in.prefill_tokens);
    while (!in.prefilling.empty() && tokens >= spec_.isl) { // members whose prompt is complete: first token now
      Group& g = in.prefilling.front();
      const int n = static_cast<int>(std::min<long long>(g.count, tokens / spec_.isl));
      tokens -= static_cast<long long>(n) * spec_.isl;
      Decoding d{g.take_front(n), in.iterations + spec_.osl - 1, now_};
      if (g.count == 0) in.prefilling.pop_front();
      in.prefill_count -= n;
      if (spec_.osl <= 1) {
        finish(d);
      } else {
        in.decoding.push_back(d);
        in.decode_count += n;
      }
    }
    in.head_done = in.prefilling.empty() ? 0 : static_cast<int>(tokens);
    start(in);
  }

  void finish(const Decoding& d) {
    end_s_ = std::max(end_s_, now_);
    const Group& g = d.group;
    if (!g.measured) return;
    const double tpot = spec_.osl > 1 ? (now_ - d.first_token_s) / (spec_.osl - 1) : 0.0;
    const double w = (g.a1 - g.a0) / g.count; // member j arrived at a0 + (j + ½)w; its TTFT falls with j
    int met = 0;
    if (tpot <= spec_.tpot_slo_s) {
      if (w <= 0)
        met = d.first_token_s - g.a0 <= spec_.ttft_slo_s ? g.count : 0;
      else // j ≥ (first − slo − a0)/w − ½
        met = g.count - std::clamp(static_cast<int>(std::ceil((d.first_token_s - spec_.ttft_slo_s - g.a0) / w - 0.5)),
                                   0, g.count);
    }
    result_.completed += g.count;
    result_.met += met;
    result_.tpot_s.emplace_back(tpot, g.count);
    const int points = std::min(g.count, 2);
    for (int q = 0; q < points; ++q)
      result_.ttft_s.emplace_back(d.first_token_s - (g.a0 + (q + 0.5) * g.count / points * w),
                                  static_cast<double>(g.count) / points);
  }

  void fail(int index) {
    Instance& in = instances_[static_cast<std::size_t>(index)];
    ++in.outages;
    if (in.down) return; // already out: nothing in flight
    in.busy = false;
    in.down = true;
    // Their KV lost, the instance's requests go back to the queue's head (prefilling first, then decoding,
    // each in order) to be prefilled again.
    for (auto it = in.decoding.rbegin(); it != in.decoding.rend(); ++it)
      queue_.push_front(it->group);
    for (auto it = in.prefilling.rbegin(); it != in.prefilling.rend(); ++it)
      queue_.push_front(*it);
    result_.retried += in.prefill_count + in.decode_count;
    in.prefilling.clear();
    in.decoding.clear();
    in.prefill_count = in.decode_count = in.head_done = 0;
    start_all();
  }

  void repair(int index) {
    Instance& in = instances_[static_cast<std::size_t>(index)];
    if (--in.outages > 0) return; // another outage holds it
    in.down = false;
    start(in);
  }
};

} // namespace

double BatchPlayResult::ttft_mean_s() const {
  double s = 0, w = 0;
  for (const auto& [v, n] : ttft_s) {
    s += v * n;
    w += n;
  }
  return w > 0 ? s / w : 0.0;
}

double BatchPlayResult::tpot_mean_s() const {
  double s = 0, w = 0;
  for (const auto& [v, n] : tpot_s) {
    s += v * n;
    w += n;
  }
  return w > 0 ? s / w : 0.0;
}

double BatchPlayResult::quantile(std::vector<std::pair<double, double>> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  double total = 0;
  for (const auto& s : samples)
    total += s.second;
  double cum = 0;
  for (const auto& [v, n] : samples)
    if ((cum += n) >= q * total) return v;
  return samples.back().first;
}

BatchPlayResult play_batches(const PlaySpec& spec, const IterationCost& cost, bool steady_start) {
  if (spec.arrival_req_per_s <= 0 || spec.requests < 1 || spec.isl < 1 || spec.osl < 1)
    throw std::invalid_argument("play_batches: rate, requests, isl and osl must be positive");
  if (spec.disaggregated || spec.geometric_osl)
    throw std::invalid_argument("play_batches: an aggregated pool with fixed output lengths only");
  if (cost.max_batch < 1 || cost.chunk_tokens < 1 || !cost.decode_step_s)
    throw std::invalid_argument("play_batches: the iteration cost needs max_batch, chunk_tokens and decode_step_s");
  BatchPlay play(spec, cost);
  return play.run(steady_start);
}

} // namespace dcsim::serving
