// Checkpoints over storage tiers and restarts in parts (docs/recovery.md), run through the production
// path, against closed forms.
//
// The job: 256 GPUs on 4 NVL72 racks (64 active each), 1 s steps, a checkpoint every 600 s of compute, of
// 25,600 GB (100 GB per GPU). Tiers: host memory with one peer replica (write 1,600 Gb/s = 200 GB/s per
// GPU, replicate 100 Gb/s = 12.5 GB/s), then an object store (write 8,000 Gb/s = 1,000 GB/s, reached
// through 4 racks x 6,400 Gb/s of uplinks = 3,200 GB/s, so the store's own bandwidth bounds it):
//   snapshot 100 / 200 = 0.5 s, peer copy 100 / 12.5 = 8 s, store 25,600 / 1,000 = 25.6 s.
// Synchronous: training blocks 0.5 + 8 + 25.6 = 34.1 s per checkpoint; asynchronous: 0.5 s.
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>

using namespace dcsim;

namespace {

constexpr int G = 256;
constexpr double DURATION_S = 86400;

std::string scenario_json(bool async, const std::string& modes, const std::string& restart) {
  return fmt::format(R"({{
    "name": "recovery", "seed": 5, "replicas": {}, "duration_h": 24,
    "hardware": {{ "gpu": {{ "model": "gb200" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": 4 }},
    "failures": {{ "modes": {} }},
    "operations": {{ {} }},
    "storage": {{ "tiers": [
        {{ "name": "mem", "kind": "host_memory", "write_gbps": 1600, "peer_replicas": 1, "replicate_gbps": 100 }},
        {{ "name": "store", "kind": "object_store", "write_gbps": 8000, "read_gbps": 8000 }} ] }},
    "jobs": [ {{ "name": "j", "gpus": {}, "step_time_s": 1, "model_flops_per_step": 1e15,
                 "checkpoint": {{ "interval_s": 600, "size_gb": 25600, "tiers": ["mem", "store"], "async": {} }} }} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                     modes == "[]" ? 1 : 8, modes, restart, G, async ? "true" : "false");
}

double metric(const ledger::ReplicaResult& r, const std::string& name) {
  return test::mean_metric({r}, "j", name);
}

} // namespace

TEST_CASE("an asynchronous checkpoint blocks training for the snapshot only", "[scenario][recovery]") {
  for (const bool async : {false, true}) {
    const double write_s = async ? 0.5 : 0.5 + 8 + 25.6;
    const auto results = test::simulate(test::scenario_from_text(scenario_json(async, "[]", R"("restart_s": 600)")));
    REQUIRE(results.size() == 1);
    const auto& r = results[0];
    test::require_conserved(r);
    CHECK(metric(r, "checkpoint_write_s") == Approx(write_s).epsilon(1e-12));
    CHECK(metric(r, "checkpoint_durable_s") == Approx(0.5 + 8 + 25.6).epsilon(1e-12));
    CHECK(metric(r, "checkpoint_size_gb") == 25600);
    // Launch (600 s), then cycles of 600 s compute + the blocking write; the last partial one is kept.
    const double T = DURATION_S - 600, period = 600 + write_s;
    const double n = std::floor(T / period), rest = T - n * period;
    const double productive_s = n * 600 + std::min(rest, 600.0);
    const double checkpoint_s = n * write_s + std::max(0.0, rest - 600);
    INFO("async " << async);
    CHECK(metric(r, "ledger_productive_gpu_h") == Approx(productive_s * G / 3600).epsilon(1e-9));
    CHECK(metric(r, "ledger_checkpoint_gpu_h") == Approx(checkpoint_s * G / 3600).epsilon(1e-9));
    CHECK(metric(r, "checkpoints") == n);
    CHECK(metric(r, "checkpoint_fallbacks") == 0);
  }
}

TEST_CASE("a restart in parts: reschedule, initialisation growing with the job, checkpoint load", "[scenario][recovery]") {
  // The launch alone: reschedule 60 s, init 30 + 20 x log2(256) = 190 s, nothing to load.
  const std::string parts = R"("restart_s": "auto", "reschedule_s": 60, "init_s": 30, "init_s_per_gpu_doubling": 20)";
  auto results = test::simulate(test::scenario_from_text(scenario_json(true, "[]", parts)));
  const auto& launch = results.at(0);
  CHECK(metric(launch, "restart_reschedule_gpu_h") == Approx(60.0 * G / 3600).epsilon(1e-12));
  CHECK(metric(launch, "restart_init_gpu_h") == Approx(190.0 * G / 3600).epsilon(1e-12));
  CHECK(metric(launch, "restart_load_gpu_h") == 0);
  CHECK(metric(launch, "ledger_restart_gpu_h") == Approx(250.0 * G / 3600).epsilon(1e-12));

  // With GPU failures: each restart after one loads the lost shard from its peer (100 GB at 12.5 GB/s:
  // 8 s); the parts add up to the restart time, and loads are 8 s per restart after the launch.
  const std::string gpu_faults = R"([ { "name": "gpu", "scope": "gpu", "mtbf_h": 2000, "detect_s": 60, "repair_h": 0.2 } ])";
  results = test::simulate(test::scenario_from_text(scenario_json(true, gpu_faults, parts)));
  double interruptions = 0;
  for (const auto& r : results) {
    test::require_conserved(r);
    const double sum = metric(r, "restart_reschedule_gpu_h") + metric(r, "restart_init_gpu_h") + metric(r, "restart_load_gpu_h");
    CHECK(sum == Approx(metric(r, "ledger_restart_gpu_h")).epsilon(1e-9));
    interruptions += metric(r, "interruptions");
    // Loads complete for every restart but one cut short by a failure: at most 8 s each.
    CHECK(metric(r, "restart_load_gpu_h") <= 8.0 * G / 3600 * metric(r, "interruptions") * (1 + 1e-12));
  }
  CHECK(interruptions > 0);
}

TEST_CASE("storage flows: two jobs draining into one object store get half its bandwidth each", "[scenario][recovery]") {
  // Two copies of the job above on 8 racks, in phase (same launch, step and interval, no failures): their
  // drains reach the store at the same time and share its 1,000 GB/s (max-min: 500 GB/s each, their own
  // uplinks of 3,200 GB/s not binding), so each copy is in the store 0.5 + 8 + 25,600 / 500 = 59.7 s
  // after its snapshot began. With a 40 s interval the drains outlast it: snapshots wait, and newer ones
  // replace waiting ones (skipped), which a single job's closed form (33.6 s) would not show.
  auto two_jobs = [](int interval_s) {
    std::string json = scenario_json(true, "[]", R"("restart_s": 600)");
    const std::string job = fmt::format(R"({{ "name": "j", "gpus": {}, "step_time_s": 1, "model_flops_per_step": 1e15,
                 "checkpoint": {{ "interval_s": 600, "size_gb": 25600, "tiers": ["mem", "store"], "async": true }} }})", G);
    const auto at = json.find(job);
    REQUIRE(at != std::string::npos);
    std::string both = job + ", " + job;
    both.replace(both.find(R"("name": "j")", job.size()), 11, R"("name": "k")");
    json.replace(at, job.size(), both);
    json.replace(json.find(R"("racks": 4)"), 10, R"("racks": 8)");
    for (std::size_t p = json.find("\"interval_s\": 600"); p != std::string::npos; p = json.find("\"interval_s\": 600", p + 1))
      json.replace(p, 17, fmt::format("\"interval_s\": {:3d}", interval_s));
    return test::scenario_from_text(json);
  };
  const auto shared = test::simulate(two_jobs(600));
  REQUIRE(shared.size() == 1);
  test::require_conserved(shared[0]);
  for (const char* job : {"j", "k"}) {
    INFO("job " << job);
    CHECK(test::mean_metric(shared, job, "checkpoint_durable_s") == Approx(0.5 + 8 + 51.2).margin(1e-5));
    CHECK(test::mean_metric(shared, job, "checkpoint_durable_max_s") == Approx(0.5 + 8 + 51.2).margin(1e-5));
    CHECK(test::mean_metric(shared, job, "checkpoint_drains_skipped") == 0);
  }
  const auto crowded = test::simulate(two_jobs(40));
  test::require_conserved(crowded[0]);
  for (const char* job : {"j", "k"}) {
    INFO("job " << job);
    CHECK(test::mean_metric(crowded, job, "checkpoint_drains_skipped") > 0);
    CHECK(test::mean_metric(crowded, job, "checkpoint_durable_max_s") > 40.5);
  }
}

TEST_CASE("storage faults: with the object store out of reach, a failure that needs it loses every checkpoint since",
          "[scenario][recovery]") {
  // The job above with host memory without peers (a GPU fault loses the node's copy: only the store's
  // counts) and an object store that fails in the first seconds (MTBF 36 s) and is not back within the day.
  // Every drain stops before the store, so the first GPU fault loses every checkpoint taken (all rework),
  // and its restore waits for the store: the job makes no more progress. Without a GPU fault nothing is
  // lost, but no copy ever reaches the store.
  std::string json = scenario_json(true, R"([
      { "name": "gpu", "scope": "gpu", "rate_per_gpu_day": 0.004, "detect_s": 60, "repair_h": 1 },
      { "name": "store_outage", "scope": "object_store", "mtbf_h": 0.01, "detect_s": 0, "repair_h": 1000 } ])",
                                   R"("restart_s": "auto", "spare_racks": 1)");
  json.replace(json.find(R"("peer_replicas": 1)"), 18, R"("peer_replicas": 0)");
  json.replace(json.find(R"("racks": 4)"), 10, R"("racks": 5)");
  const auto results = test::simulate(test::scenario_from_text(json));
  int with_fault = 0;
  for (const auto& r : results) {
    test::require_conserved(r);
    INFO("replica " << r.replica);
    REQUIRE(r.modes.at(1).failures >= 1); // the store went out early, once
    CHECK(std::isnan(metric(r, "checkpoint_durable_s"))); // no drain ever reached the store
    if (r.modes.at(0).failures > 0 && metric(r, "interruptions") > 0) {
      ++with_fault;
      CHECK(metric(r, "ledger_productive_gpu_h") == 0);
      CHECK(metric(r, "checkpoints") == 0);
      CHECK(metric(r, "checkpoint_fallbacks") > 0);
    } else {
      CHECK(metric(r, "checkpoint_fallbacks") == 0);
    }
  }
  CHECK(with_fault > 0);
}
