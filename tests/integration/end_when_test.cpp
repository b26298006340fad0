// end_when "jobs_done": a replica ends at the last completion of a training job with work_h; and a
// reliability-only job (no step_time_s, no model_flops_per_step) runs, its step and MFU metrics undefined.
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace dcsim;

namespace {

double metric(const ledger::Metrics& m, const std::string& name) {
  for (const auto& [n, v] : m)
    if (n == name) return v;
  FAIL("no metric " << name);
  return 0;
}

// Two reliability-only jobs with work (40 h on 2 racks, 90 h on 1 rack) and an open-ended one, on 5 NVL72
// racks with GPU and rack failures; the cap (2,000 h) is far beyond the work.
std::string scenario_text(const std::string& end_when) {
  return R"({
    "name": "done", "seed": 3, "replicas": 4, "duration_h": 2000, "end_when": ")" + end_when + R"(",
    "hardware": { "gpu": { "model": "gb200" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 5 },
    "failures": { "modes": [
      { "name": "gpu", "scope": "gpu", "mtbf_h": 20000, "detect_s": 120, "repair_h": 4 },
      { "name": "rack", "scope": "rack", "mtbf_h": 2000, "detect_s": 60, "repair_h": 8 } ] },
    "operations": { "restart_s": 600, "spare_racks": 1 },
    "jobs": [
      { "name": "a", "gpus": 128, "work_h": 40, "checkpoint": { "interval_s": 1800, "write_s": 30 } },
      { "name": "b", "gpus": 64, "work_h": 90, "checkpoint": { "interval_s": 3600, "write_s": 60 } },
      { "name": "c", "gpus": 64, "checkpoint": { "interval_s": 3600, "write_s": 60 } } ],
    "output": { "timeseries_interval_s": 3600, "events": true }
  })";
}

} // namespace

TEST_CASE("end_when jobs_done ends each replica at its last completion, GPU-time conserved", "[scenario]") {
  const auto done = test::simulate(test::scenario_from_text(scenario_text("jobs_done")));
  const auto capped = test::simulate(test::scenario_from_text(scenario_text("duration_h")));
  REQUIRE(done.size() == capped.size());
  for (std::size_t i = 0; i < done.size(); ++i) {
    const auto& r = done[i];
    sim::Tick last = -1;
    for (const auto& job : r.jobs)
      if (job.name != "c") {
        REQUIRE(job.completed_at > 0);
        last = std::max(last, job.completed_at);
      }
    // The end date is the last completion exactly; the open-ended job "c" held its GPUs until then.
    CHECK(r.duration == last);
    CHECK(r.jobs[2].completed_at == -1);
    CHECK(r.jobs[2].wall == r.duration);
    // Conservation: every job's states sum to its GPUs x wall, the cluster's to all GPUs x the end date.
    test::require_conserved(r);
    double cluster_gpu_h = 0;
    for (double h : ledger::cluster_ledger_gpu_h(r))
      cluster_gpu_h += h;
    CHECK(cluster_gpu_h == Approx(5 * 72 * sim::to_hours(r.duration)).epsilon(1e-9));
    // Nothing is recorded after the end: no event, no sample, no failure of the tail.
    for (const auto& e : r.events)
      CHECK(e.time <= r.duration);
    for (const auto& s : r.samples)
      CHECK(s.time <= r.duration);
    // The same seed with the 2,000 h cap: the same history up to the end date, then the tail's failures.
    const auto& c = capped[i];
    CHECK(c.duration == sim::hours_to_ticks(2000));
    CHECK(c.jobs[0].completed_at == r.jobs[0].completed_at);
    CHECK(c.jobs[1].completed_at == r.jobs[1].completed_at);
    std::uint64_t failures_done = 0, failures_capped = 0, failures_until_end = 0;
    for (const auto& m : r.modes)
      failures_done += m.failures;
    for (const auto& m : c.modes)
      failures_capped += m.failures;
    for (const auto& e : c.events)
      if (e.kind.str() == "failure" && e.time <= r.duration) ++failures_until_end;
    CHECK(failures_done == failures_until_end);
    CHECK(failures_capped > failures_done);
  }
}

TEST_CASE("a reliability-only job runs without step_time_s and model_flops_per_step: no step, no MFU",
          "[scenario]") {
  const auto results = test::simulate(test::scenario_from_text(scenario_text("jobs_done")));
  for (const auto& r : results) {
    for (const auto& job : r.jobs) {
      const auto m = ledger::job_metrics(job, r.peak_flops_per_gpu);
      CHECK(std::isnan(metric(m, "step_time_s")));
      CHECK(std::isnan(metric(m, "mfu_frac")));
      CHECK(std::isnan(metric(m, "effective_mfu_frac")));
      CHECK(std::isnan(metric(m, "tokens_per_s")));
      CHECK(metric(m, "goodput_frac") > 0.5); // the reliability metrics are all there
      CHECK(metric(m, "goodput_frac") <= 1.0);
    }
    // Job "a" completed exactly its work: 40 h on 128 GPUs of productive GPU-time (its ticks are 1 µs).
    CHECK(r.jobs[0].gpu_h[static_cast<std::size_t>(workload::JobTime::PRODUCTIVE)] ==
          Approx(40.0 * 128).epsilon(1e-9));
    CHECK(std::isnan(metric(ledger::cluster_metrics(r), "effective_mfu_frac")));
    for (const auto& s : r.samples)
      CHECK(s.gauge.str() != "step_time_s");
  }
}
