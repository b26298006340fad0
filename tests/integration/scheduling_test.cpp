// Scheduling (issue 6): a queue, priorities with preemption at checkpoints, elastic jobs, and an
// inference service that borrows GPUs from training (SUNK) — each against dates and integrals derived by
// hand from the scenario's numbers.
#include "tests/support/shell.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <numbers>

using namespace dcsim;
using workload::JobTime;

namespace {

/// `racks` GB200 NVL72 racks of 64 usable GPUs (8 in-rack spares), no failures, no spare racks, a 600 s
/// restart; `jobs` is the JSON of the jobs array.
std::string sched_scenario_json(int racks, double duration_h, const std::string& jobs, int replicas = 1) {
  return fmt::format(R"({{
    "name": "sched", "seed": 5, "replicas": {}, "duration_h": {},
    "hardware": {{ "gpu": {{ "model": "gb200" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": {} }},
    "operations": {{ "restart_s": 600, "spare_racks": 0 }},
    "jobs": {},
    "output": {{ "timeseries_interval_s": 600, "events": true }}
  }})",
                     replicas, duration_h, racks, jobs);
}

Scenario sched_scenario(int racks, double duration_h, const std::string& jobs, int replicas = 1) {
  return test::scenario_from_text(sched_scenario_json(racks, duration_h, jobs, replicas));
}

const ledger::JobOutcome& job_named(const ledger::ReplicaResult& r, const std::string& name) {
  for (const auto& j : r.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return r.jobs.front();
}

double metric(const ledger::ReplicaResult& r, const std::string& job, const std::string& name) {
  for (const auto& [n, v] : ledger::job_metrics(job_named(r, job), r.peak_flops_per_gpu))
    if (n == name) return v;
  FAIL("no metric " << name);
  return 0;
}

double state_h(const ledger::JobOutcome& job, JobTime state) { return job.gpu_h[static_cast<std::size_t>(state)]; }

/// The job's `gpus` gauge over time.
std::vector<std::pair<double, double>> gpus_series(const ledger::ReplicaResult& r, const std::string& job) {
  std::vector<std::pair<double, double>> v;
  for (const auto& s : r.samples)
    if (s.entity == job && s.gauge == "gpus") v.emplace_back(sim::to_hours(s.time), s.value);
  return v;
}

} // namespace

TEST_CASE("queue: a job waits for GPUs until the one ahead completes its work", "[scenario][sched]") {
  // 4 racks; a and b each need all 256 GPUs, both arrive at 0: a runs, b queues. a's 10 h of work take
  // restart 600 s + 36,000 s of compute + 9 checkpoint writes of 30 s (the 10th interval ends the work:
  // no write) = 36,870 s; b is placed at that instant and needs as long again.
  const Scenario s = sched_scenario(4, 48, R"([
    { "name": "a", "gpus": 256, "step_time_s": 1, "model_flops_per_step": 1e15, "work_h": 10,
      "checkpoint": { "interval_s": 3600, "write_s": 30 } },
    { "name": "b", "gpus": 256, "step_time_s": 1, "model_flops_per_step": 1e15, "work_h": 10,
      "checkpoint": { "interval_s": 3600, "write_s": 30 } } ])");
  const auto results = test::simulate(s);
  const auto& r = results.front();
  test::require_conserved(r);
  const double done_a_h = 36870.0 / 3600;
  CHECK(metric(r, "a", "completion_h") == Approx(done_a_h).epsilon(1e-12));
  CHECK(metric(r, "a", "queue_h") == 0);
  CHECK(metric(r, "b", "queue_h") == Approx(done_a_h).epsilon(1e-12));
  CHECK(metric(r, "b", "completion_h") == Approx(2 * done_a_h).epsilon(1e-12));
  CHECK(state_h(job_named(r, "b"), JobTime::PRODUCTIVE) == Approx(10.0 * 256).epsilon(1e-12));
  // After both, nothing holds GPUs: allocated GPU-time is the two jobs' 256 GPUs x done_a_h each.
  CHECK(job_named(r, "a").wall == sim::to_ticks(36870));
  CHECK(job_named(r, "b").wall == sim::to_ticks(36870));
}

TEST_CASE("priority: a later high-priority job preempts at the victim's next checkpoint, losing no work",
          "[scenario][sched]") {
  // low holds all 4 racks from 0: restart to 600 s, then cycles of 1,800 s compute + 30 s write. high
  // (priority 10, 128 GPUs) arrives at 7,200 s, inside low's 4th cycle, whose write ends at
  // 600 + 4 x 1,830 = 7,920 s: low stops there, high is placed (queue 720 s), restarts 600 s and works
  // 5 h with 4 writes of 30 s: it completes at 7,920 + 600 + 18,000 + 120 = 26,640 s. low, not elastic,
  // waits for all 4 racks until then.
  const Scenario s = sched_scenario(4, 24, R"([
    { "name": "low", "gpus": 256, "step_time_s": 1, "model_flops_per_step": 1e15,
      "checkpoint": { "interval_s": 1800, "write_s": 30 } },
    { "name": "high", "gpus": 128, "priority": 10, "arrival_h": 2, "step_time_s": 1, "model_flops_per_step": 1e15,
      "work_h": 5, "checkpoint": { "interval_s": 3600, "write_s": 30 } } ])");
  const auto results = test::simulate(s);
  const auto& r = results.front();
  test::require_conserved(r);
  const auto& low = job_named(r, "low");
  CHECK(r.preemptions == 1);
  CHECK(metric(r, "high", "queue_h") == Approx(720.0 / 3600).epsilon(1e-12));
  CHECK(metric(r, "high", "completion_h") == Approx(26640.0 / 3600).epsilon(1e-12));
  CHECK(metric(r, "low", "queue_h") == Approx((26640.0 - 7920.0) / 3600).epsilon(1e-12));
  CHECK(state_h(low, JobTime::REWORK) == 0); // stopped exactly at a checkpoint
  CHECK(low.interruptions == 0);
  CHECK(low.reallocations == 1);
  // Two launches of low (at 0 and at 26,640 s), each a 600 s restart on 256 GPUs.
  CHECK(state_h(low, JobTime::RESTART) == Approx(2 * 600.0 / 3600 * 256).epsilon(1e-12));
}

TEST_CASE("elastic: a preempted elastic job restarts on what is left, then grows back", "[scenario][sched]") {
  // As above, but low may run on half its GPUs: it restarts at once on the 2 racks high leaves, and
  // returns to 4 racks at its first checkpoint after high completes.
  const Scenario s = sched_scenario(4, 24, R"([
    { "name": "low", "gpus": 256, "min_gpus_frac": 0.5, "step_time_s": 1, "model_flops_per_step": 1e15,
      "checkpoint": { "interval_s": 1800, "write_s": 30 } },
    { "name": "high", "gpus": 128, "priority": 10, "arrival_h": 2, "step_time_s": 1, "model_flops_per_step": 1e15,
      "work_h": 5, "checkpoint": { "interval_s": 3600, "write_s": 30 } } ])");
  const auto results = test::simulate(s);
  const auto& r = results.front();
  test::require_conserved(r);
  const auto& low = job_named(r, "low");
  CHECK(metric(r, "high", "completion_h") == Approx(26640.0 / 3600).epsilon(1e-12));
  CHECK(metric(r, "low", "queue_h") == 0); // re-placed in the instant it was released
  CHECK(state_h(low, JobTime::REWORK) == 0);
  CHECK(low.reallocations == 3); // released, placed at half size, resized back
  // Its size over time: 256, then 128 while high runs, then 256 again.
  double before = -1, during = -1, after = -1;
  for (const auto& [h, gpus] : gpus_series(r, "low")) {
    if (h > 1 && h < 2) before = gpus;
    if (h > 3 && h < 7) during = gpus;
    if (h > 9) after = gpus;
  }
  CHECK(before == 256);
  CHECK(during == 128);
  CHECK(after == 256);
  // Three launches, each a 600 s restart: at 0 on 256 GPUs, at 7,920 s on 128, and after growing back
  // at its first checkpoint after 26,640 s (8,520 + 10 x 1,830 = 26,820 s) on 256.
  CHECK(state_h(low, JobTime::RESTART) == Approx((256 + 128 + 256) * 600.0 / 3600).epsilon(1e-12));
  // Productive: 4 cycles of 1,800 s on 256 GPUs, 10 on 128, then from 27,420 s to the end at 256 (the
  // last, unfinished interval counts as productive at the end of the run only if it is checkpointed:
  // 32 whole cycles of 1,830 s fit in 86,400 − 27,420 = 58,980 s, 420 s of compute remain).
  const double whole = (4 * 1800.0 * 256 + 10 * 1800.0 * 128 + 32 * 1800.0 * 256) / 3600;
  CHECK(state_h(low, JobTime::PRODUCTIVE) >= whole - 1e-9);
  CHECK(state_h(low, JobTime::PRODUCTIVE) <= whole + 420.0 * 256 / 3600 + 1e-9);
}

TEST_CASE("inference: demand integrated exactly, fixed capacity above peak serves it all, SUNK lends GPUs to "
          "training", "[scenario][sched][inference]") {
  // 8 racks (512 GPUs). The service may hold 4 racks (256 GPUs x 1,000 tokens/s = 256k tokens/s, above the
  // 192k peak of 128k x (1 + 0.5)); training (elastic down to a quarter) takes the rest.
  auto make = [](bool sunk) {
    return sched_scenario(8, 72, fmt::format(R"([
      {{ "name": "chat", "kind": "inference", "gpus": 256, "priority": 10, "tokens_per_s_per_gpu": 1000,
        "demand_tokens_per_s": 128000, "demand_swing_frac": 0.5, "demand_peak_hour": 14, "demand_step_h": 1,
        "move_s": 300, "min_gpus_frac": 0.25, "sunk": {} }},
      {{ "name": "train", "gpus": 512, "min_gpus_frac": 0.25, "step_time_s": 1, "model_flops_per_step": 1e15,
        "checkpoint": {{ "interval_s": 1800, "write_s": 30 }} }} ])",
                                             sunk ? "true" : "false"));
  };
  const auto fixed = test::simulate(make(false)).front();
  const auto sunk = test::simulate(make(true)).front();
  test::require_conserved(fixed);
  test::require_conserved(sunk);
  // Demand is constant over each hour at its value at the hour's start: Σ_h d(h) x 3,600.
  double demanded = 0;
  for (int h = 0; h < 72; ++h)
    demanded += 128000 * (1 + 0.5 * std::cos(2 * std::numbers::pi * ((h % 24) - 14) / 24.0)) * 3600;
  REQUIRE(fixed.services.size() == 1);
  REQUIRE(sunk.services.size() == 1);
  CHECK(fixed.services[0].demanded_tokens == Approx(demanded).epsilon(1e-12));
  CHECK(sunk.services[0].demanded_tokens == Approx(demanded).epsilon(1e-12));
  CHECK(fixed.services[0].served_tokens == Approx(demanded).epsilon(1e-12));
  CHECK(fixed.services[0].serving_gpu_h == Approx(256.0 * 72).epsilon(1e-12));
  CHECK(fixed.services[0].moves == 0);
  // SUNK follows demand with whole racks: it moves, loses a little while racks move in (300 s each), and
  // training gets the GPU-hours the service does not need.
  const auto& sv = sunk.services[0];
  CHECK(sv.moves > 0);
  CHECK(sv.served_tokens <= sv.demanded_tokens);
  CHECK(sv.served_tokens / sv.demanded_tokens > 0.98);
  CHECK(sv.moving_gpu_h > 0);
  CHECK(sv.moving_gpu_h <= sv.moves * 4 * 64 * 300 / 3600.0 + 1e-9); // at most 4 racks per move, 300 s each
  CHECK(sv.serving_gpu_h + sv.moving_gpu_h < 0.85 * 256 * 72);
  CHECK(state_h(sunk.jobs[0], JobTime::PRODUCTIVE) > state_h(fixed.jobs[0], JobTime::PRODUCTIVE) * 1.1);
  // The cluster ledger's inference row is the service's GPU-time.
  const auto states = ledger::cluster_ledger_states();
  const auto row = static_cast<std::size_t>(std::find(states.begin(), states.end(), "inference") - states.begin());
  CHECK(ledger::cluster_ledger_gpu_h(sunk)[row] ==
        Approx(sv.serving_gpu_h + sv.moving_gpu_h + sv.down_gpu_h).epsilon(1e-12));
}

TEST_CASE("inference: a demand trace is integrated exactly, inline or from a CSV file", "[scenario][sched][inference]") {
  // Demand 50k tokens/s until 10 h, 200k until 30 h, 0 until 40 h, then 120k: with 256 GPUs x 1,000
  // tokens/s held throughout (no SUNK), every token is served.
  const std::string jobs = R"([
      { "name": "chat", "kind": "inference", "gpus": 256, "tokens_per_s_per_gpu": 1000, "sunk": false,
        "demand_trace": [[0, 50000], [10, 200000], [30, 0], [40, 120000]] },
      { "name": "train", "gpus": 256, "step_time_s": 1, "model_flops_per_step": 1e15 } ])";
  const auto r = test::simulate(sched_scenario(8, 48, jobs)).front();
  const double expected = (50000.0 * 10 + 200000.0 * 20 + 0 * 10 + 120000.0 * 8) * 3600;
  REQUIRE(r.services.size() == 1);
  CHECK(r.services[0].demanded_tokens == Approx(expected).epsilon(1e-12));
  CHECK(r.services[0].served_tokens == Approx(expected).epsilon(1e-12));
  // The same trace from a file (as dcsim reads it: relative to the scenario file).
  const auto dir = test::fresh_test_dir("demand-trace");
  std::ofstream(dir / "demand.csv") << "# tokens/s\ntime_h,demand_tokens_per_s\n0,50000\n10,200000\n30,0\n40,120000\n";
  std::string doc = sched_scenario_json(8, 48, jobs);
  const auto at = doc.find(R"("demand_trace": [[0, 50000], [10, 200000], [30, 0], [40, 120000]])");
  REQUIRE(at != std::string::npos);
  doc.replace(at, std::string(R"("demand_trace": [[0, 50000], [10, 200000], [30, 0], [40, 120000]])").size(),
              R"("demand_trace_file": "demand.csv")");
  const auto loaded = tools::load_scenario_text(doc, (dir / "s.json").string());
  INFO(loaded.errors);
  REQUIRE(loaded.scenario.has_value());
  CHECK(loaded.scenario->jobs[0].demand_trace == test::scenario_from_text(sched_scenario_json(8, 48, jobs)).jobs[0].demand_trace);
  // A bad line is located in the file.
  std::ofstream(dir / "demand.csv") << "time_h,demand_tokens_per_s\n0,50000\n5,-3\n";
  CHECK(tools::load_scenario_text(doc, (dir / "s.json").string()).errors ==
        (dir / "s.json").string() + ": /jobs/0/demand_trace_file: demand.csv line 3: demand_tokens_per_s must be a "
                                    "finite number >= 0 (got -3)\n");
}

TEST_CASE("inference: a service short of GPUs takes the racks a completed job frees", "[scenario][sched][inference]") {
  // 4 racks. The service (SUNK, 1 to 4 racks) needs 1 rack at 64k tokens/s, then 4 from 2 h at 256k; the
  // training job (3 racks, not elastic, so it lends nothing) completes its 5 h of work at 600 + 18,000 +
  // 4 x 30 = 18,720 s. The service then takes the 3 racks, serving on them after move_s = 300 s.
  const Scenario s = sched_scenario(4, 48, R"([
      { "name": "chat", "kind": "inference", "gpus": 256, "min_gpus_frac": 0.25, "tokens_per_s_per_gpu": 1000,
        "priority": 10, "move_s": 300, "demand_trace": [[0, 64000], [2, 256000]] },
      { "name": "train", "gpus": 192, "step_time_s": 1, "model_flops_per_step": 1e15, "work_h": 5,
        "checkpoint": { "interval_s": 3600, "write_s": 30 } } ])");
  const auto r = test::simulate(s).front();
  test::require_conserved(r);
  REQUIRE(r.services.size() == 1);
  const auto& sv = r.services[0];
  CHECK(metric(r, "train", "completion_h") == Approx(18720.0 / 3600).epsilon(1e-12));
  CHECK(sv.demanded_tokens == Approx(64000.0 * 7200 + 256000.0 * (172800 - 7200)).epsilon(1e-12));
  CHECK(sv.served_tokens == Approx(64000.0 * 19020 + 256000.0 * (172800 - 19020)).epsilon(1e-12));
  CHECK(sv.moves == 1);
  CHECK(sv.moving_gpu_h == Approx(192 * 300.0 / 3600).epsilon(1e-12));
}

TEST_CASE("jobs arriving at the same date are scheduled together, by priority", "[scenario][sched]") {
  // Both need all 4 racks and arrive at 1 h; low comes first in the scenario. Scheduled one by one, low
  // would start and high preempt it at once; together, high starts and low waits for its 2 h of work:
  // 600 s restart + 7,200 s + 1 write of 30 s = 7,830 s after 1 h.
  const Scenario s = sched_scenario(4, 12, R"([
    { "name": "low", "gpus": 256, "arrival_h": 1, "step_time_s": 1, "model_flops_per_step": 1e15,
      "checkpoint": { "interval_s": 3600, "write_s": 30 } },
    { "name": "high", "gpus": 256, "priority": 10, "arrival_h": 1, "step_time_s": 1, "model_flops_per_step": 1e15,
      "work_h": 2, "checkpoint": { "interval_s": 3600, "write_s": 30 } } ])");
  const auto r = test::simulate(s).front();
  test::require_conserved(r);
  CHECK(r.preemptions == 0);
  CHECK(metric(r, "high", "queue_h") == 0);
  CHECK(metric(r, "high", "completion_h") == Approx(1 + 7830.0 / 3600).epsilon(1e-12));
  CHECK(metric(r, "low", "queue_h") == Approx(7830.0 / 3600).epsilon(1e-12));
  CHECK(job_named(r, "low").reallocations == 0);
}

TEST_CASE("energy: a training job's energy is its own when an inference service is listed before it",
          "[scenario][sched][inference][power]") {
  // 4 GB200 racks (72 GPUs each, 64 usable), no failures, 24 h. A fixed service (no SUNK) holds 128 GPUs
  // and a training job 128 GPUs, both from t = 0 to the end. With P_idle the idle GPU power, P_busy(1) a
  // busy GPU's, P_base the rack base power (models/facility.hpp):
  //   E_train = 128·(P_idle + P_base/72)·T + 128·(P_busy(1) − P_idle)·(T − restart_s)
  // (the job restarts for 600 s before it trains; its checkpoint writes count as training), while the
  // service never trains: E_chat = 128·(P_idle + P_base/72)·T. The job's energy must not depend on where
  // the service is listed (it took the service's while the service came first).
  const std::string chat = R"({ "name": "chat", "kind": "inference", "gpus": 128, "tokens_per_s_per_gpu": 1000,
      "demand_tokens_per_s": 64000, "sunk": false })";
  const std::string train = R"({ "name": "train", "gpus": 128, "step_time_s": 1, "model_flops_per_step": 1e15,
      "checkpoint": { "interval_s": 1800, "write_s": 30 } })";
  const Scenario first = sched_scenario(4, 24, "[" + chat + ", " + train + "]");
  const Scenario last = sched_scenario(4, 24, "[" + train + ", " + chat + "]");
  const auto results = test::simulate_all({first, last});
  const auto& r_first = results[0].at(0);
  const auto& r_last = results[1].at(0);
  const hardware::GpuPowerCurve gpu = first.power.gpu_curve(first.hardware.gpu);
  const double t_s = 24 * 3600.0;
  const double per_gpu_w = gpu.idle_w() + first.power.rack_base_kw * 1000 / 72;
  const double e_train = 128 * per_gpu_w * t_s + 128 * (gpu.busy_w(1.0) - gpu.idle_w()) * (t_s - 600);
  REQUIRE(r_first.jobs.size() == 1);
  REQUIRE(r_last.jobs.size() == 1);
  CHECK(r_first.jobs[0].energy_j == Approx(e_train).epsilon(1e-12));
  CHECK(r_last.jobs[0].energy_j == Approx(e_train).epsilon(1e-12));
  // The service's energy is not the job's: it never trains.
  CHECK(e_train - 128 * per_gpu_w * t_s > 1e9);
}
