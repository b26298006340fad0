#include "models/serving/request_play.hpp"

#include "sim/rng.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace dcsim::serving {

namespace {

enum class EventKind { ARRIVAL, ITERATION_END, KV_READY, FAILURE, REPAIR };

struct Event {
  double t;
  long long seq;
  EventKind kind;
  int index;
  int epoch;
  bool operator>(const Event& o) const { return std::tie(t, seq) > std::tie(o.t, o.seq); }
};

struct Request {
  double arrival = 0;
  int osl = 1;
  int prefilled = 0;
  double first_token = -1;
  double last_token = 0;
  bool done = false;
};

struct Instance {
  bool decode_pool = false; ///< disaggregated decode instance
  bool prefill_only = false;
  // Decoding requests emit a token at every iteration, so each finishes at a known iteration: they are kept
  // in a heap by that iteration (an iteration costs O(log batch) per finishing request, not O(batch)).
  std::vector<int> prefilling; ///< admitted, first token not yet emitted (FCFS)
  std::priority_queue<std::pair<long long, int>, std::vector<std::pair<long long, int>>, std::greater<>> decoding;
  long long iterations = 0;    ///< iterations ended
  int decodes = 0;             ///< decodes of the iteration in progress
  std::vector<std::pair<int, int>> prefill_plan; ///< (request, tokens) of the iteration in progress
  int running() const { return static_cast<int>(prefilling.size() + decoding.size()); }
  bool busy = false;
  bool down = false;
  int outages = 0; ///< outages in progress
  int epoch = 0;
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(q * v.size())) - 1;
  return v[std::min(i, v.size() - 1)];
}

class Play {
public:
  Play(const PlaySpec& spec, const IterationCost& cost, const IterationCost& prefill_cost)
      : spec_(spec), cost_(cost), prefill_cost_(prefill_cost), arrivals_(spec.seed, 0, "serving/arrivals"),
        lengths_(spec.seed, 0, "serving/lengths") {
    if (spec.disaggregated) {
      for (int i = 0; i < spec.prefill_instances; ++i)
        instances_.push_back(Instance{false, true});
      for (int i = 0; i < spec.decode_instances; ++i)
        instances_.push_back(Instance{true, false});
    } else {
      instances_.resize(static_cast<std::size_t>(spec.instances));
    }
  }

  PlayResult run() {
    push(arrivals_.exponential(spec_.arrival_req_per_s), EventKind::ARRIVAL, 0, 0);
    if (spec_.fail_instance_at_s >= 0)
      outage(Outage{0, spec_.fail_instance_at_s, spec_.fail_instance_at_s + spec_.repair_s});
    for (const Outage& o : spec_.outages)
      outage(o);
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.t;
      dispatch(e);
    }
    return result();
  }

private:
  const PlaySpec& spec_;
  const IterationCost& cost_;
  const IterationCost& prefill_cost_;
  sim::Rng arrivals_, lengths_;
  std::vector<Instance> instances_;
  std::vector<Request> requests_;
  std::deque<int> waiting_, decode_waiting_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  long long seq_ = 0;
  double now_ = 0;
  int retried_ = 0;

  void push(double t, EventKind kind, int index, int epoch) { events_.push({t, seq_++, kind, index, epoch}); }

  void outage(const Outage& o) {
    if (o.instance < 0 || o.instance >= static_cast<int>(instances_.size()))
      throw std::invalid_argument("play_requests: an outage names no instance of the pool");
    push(o.at_s, EventKind::FAILURE, o.instance, 0);
    if (o.back_s < 1e300) push(std::max(o.at_s, o.back_s), EventKind::REPAIR, o.instance, 0);
  }

  const IterationCost& cost_of(const Instance& in) const { return in.prefill_only ? prefill_cost_ : cost_; }

  void dispatch(const Event& e) {
    switch (e.kind) {
    case EventKind::ARRIVAL: arrive(); break;
    case EventKind::ITERATION_END: end_iteration(e.index, e.epoch); break;
    case EventKind::KV_READY:
      decode_waiting_.push_back(e.index);
      start_all(true);
      break;
    case EventKind::FAILURE: fail(e.index); break;
    case EventKind::REPAIR:
      if (--instances_[static_cast<std::size_t>(e.index)].outages > 0) break; // another outage holds it
      instances_[static_cast<std::size_t>(e.index)].down = false;
      start(e.index);
      break;
    }
  }

  void arrive() {
    Request r;
    r.arrival = now_;
    r.osl = spec_.geometric_osl ? 1 + geometric(spec_.osl - 1.0) : spec_.osl;
    requests_.push_back(r);
    waiting_.push_back(static_cast<int>(requests_.size()) - 1);
    if (static_cast<int>(requests_.size()) < spec_.requests)
      push(now_ + arrivals_.exponential(spec_.arrival_req_per_s), EventKind::ARRIVAL, 0, 0);
    start_all(false);
  }

  int geometric(double mean) {
    if (mean <= 0) return 0;
    const double p = 1.0 / (1.0 + mean); // failures before the first success, mean (1 − p)/p
    return static_cast<int>(std::floor(std::log(lengths_.uniform01()) / std::log1p(-p)));
  }

  void start_all(bool decode_pool) {
    for (std::size_t i = 0; i < instances_.size(); ++i)
      if (instances_[i].decode_pool == decode_pool) start(static_cast<int>(i));
  }

  void start(int index) {
    Instance& in = instances_[static_cast<std::size_t>(index)];
    if (in.busy || in.down) return;
    const IterationCost& c = cost_of(in);
    auto& queue = in.decode_pool ? decode_waiting_ : waiting_;
    while (in.running() < c.max_batch && !queue.empty()) {
      const int r = queue.front();
      queue.pop_front();
      if (in.decode_pool) // its first token came from the prefill pool: osl − 1 more, one per iteration
        in.decoding.emplace(in.iterations + requests_[static_cast<std::size_t>(r)].osl - 1, r);
      else
        in.prefilling.push_back(r);
    }
    in.prefill_plan.clear();
    in.decodes = static_cast<int>(in.decoding.size());
    int budget = c.chunk_tokens - in.decodes;
    int prefill_tokens = 0;
    for (int r : in.prefilling) {
      if (budget <= 0) break;
      const Request& q = requests_[static_cast<std::size_t>(r)];
      const int take = std::min(budget, spec_.isl - q.prefilled);
      in.prefill_plan.emplace_back(r, take);
      budget -= take;
      prefill_tokens += take;
    }
    if (in.decodes == 0 && in.prefill_plan.empty()) return;
    const double t = (in.decodes > 0 ? c.decode_step_s(in.decodes) : 0.0) + prefill_tokens * c.prefill_s_per_token;
    in.busy = true;
    push(now_ + t, EventKind::ITERATION_END, index, in.epoch);
  }

  void finish(int r) {
    Request& q = requests_[static_cast<std::size_t>(r)];
    q.last_token = now_;
    q.done = true;
  }

  void end_iteration(int index, int epoch) {
    Instance& in = instances_[static_cast<std::size_t>(index)];
    if (epoch != in.epoch) return; // the instance failed during the iteration
    in.busy = false;
    ++in.iterations;
    if (in.decodes > 0) // the decodes of this iteration emitted a token each: those at their last are done
      while (!in.decoding.empty() && in.decoding.top().first <= in.iterations) {
        finish(in.decoding.top().second);
        in.decoding.pop();
      }
    for (const auto& [r, tokens] : in.prefill_plan) {
      Request& q = requests_[static_cast<std::size_t>(r)];
      q.prefilled += tokens;
      if (q.prefilled < spec_.isl) continue;
      in.prefilling.erase(std::find(in.prefilling.begin(), in.prefilling.end(), r));
      q.first_token = now_; // the prefill's token is the first
      q.last_token = now_;
      if (q.osl <= 1)
        finish(r);
      else if (in.prefill_only)
        hand_off(r);
      else
        in.decoding.emplace(in.iterations + q.osl - 1, r);
    }
    start(index);
  }

  void hand_off(int r) {
    const double t = spec_.isl * spec_.kv_transfer_s_per_token;
    if (t <= 0) {
      decode_waiting_.push_back(r);
      start_all(true);
    } else {
      push(now_ + t, EventKind::KV_READY, r, 0);
    }
  }

  void fail(int index) {
    Instance& in = instances_[static_cast<std::size_t>(index)];
    ++in.outages;
    if (in.down) return; // already out: nothing in flight
    ++in.epoch;
    in.busy = false;
    in.down = true;
    auto& queue = waiting_; // from a decode instance too: the KV is lost, the prompt is prefilled again
    std::vector<int> lost(in.prefilling.begin(), in.prefilling.end());
    for (; !in.decoding.empty(); in.decoding.pop())
      lost.push_back(in.decoding.top().second);
    for (auto it = lost.rbegin(); it != lost.rend(); ++it) { // KV lost: prefill again
      Request& q = requests_[static_cast<std::size_t>(*it)];
      q.prefilled = 0;
      q.first_token = -1;
      ++retried_;
      queue.push_front(*it);
    }
    in.prefilling.clear();
    start_all(false);
  }

  PlayResult result() const {
    PlayResult res;
    std::vector<double> ttft, tpot;
    int met = 0;
    double end = 0, tokens = 0;
    for (const auto& q : requests_) {
      if (!q.done || q.arrival < spec_.measure_from_s) continue;
      const double a = q.first_token - q.arrival;
      const double b = q.osl > 1 ? (q.last_token - q.first_token) / (q.osl - 1) : 0.0;
      ttft.push_back(a);
      tpot.push_back(b);
      if (a <= spec_.ttft_slo_s && b <= spec_.tpot_slo_s) ++met;
      end = std::max(end, q.last_token);
      tokens += q.osl;
    }
    res.completed = static_cast<int>(ttft.size());
    res.met = met;
    res.retried = retried_;
    res.duration_s = end;
    auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v)
        s += x;
      return v.empty() ? 0.0 : s / v.size();
    };
    res.ttft_mean_s = mean(ttft);
    res.ttft_p50_s = percentile(ttft, 0.5);
    res.ttft_p99_s = percentile(ttft, 0.99);
    res.tpot_mean_s = mean(tpot);
    res.tpot_p50_s = percentile(tpot, 0.5);
    res.tpot_p99_s = percentile(tpot, 0.99);
    res.slo_attainment_frac = res.completed > 0 ? double(met) / res.completed : 0.0;
    res.goodput_req_per_s = end > 0 ? met / end : 0.0;
    res.throughput_req_per_s = end > 0 ? res.completed / end : 0.0;
    res.output_tokens_per_s = end > 0 ? tokens / end : 0.0;
    if (spec_.keep_samples) {
      res.ttft_samples_s = std::move(ttft);
      res.tpot_samples_s = std::move(tpot);
    }
    return res;
  }
};

} // namespace

PlayResult play_requests(const PlaySpec& spec, const IterationCost& cost, const IterationCost& prefill_cost) {
  if (spec.arrival_req_per_s <= 0 || spec.requests < 1 || spec.isl < 1 || spec.osl < 1)
    throw std::invalid_argument("play_requests: rate, requests, isl and osl must be positive");
  if (cost.max_batch < 1 || cost.chunk_tokens < 1 || !cost.decode_step_s)
    throw std::invalid_argument("play_requests: the iteration cost needs max_batch, chunk_tokens and decode_step_s");
  Play play(spec, cost, prefill_cost);
  return play.run();
}

} // namespace dcsim::serving
