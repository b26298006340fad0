// Checkpoint drains and restores played as SimGrid flows (storage/storage_traffic.hpp) against closed
// forms: one flow through a bottleneck, max-min shares between concurrent writers, the one-drain-at-a-time
// queue, lost checkpoints, and restores that fall back to the next tier. One SimGrid engine per test case
// (each runs in its own process).
#include "models/storage/storage_traffic.hpp"

#include "tests/support/failure_modes.hpp"

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <vector>

using namespace dcsim;

namespace {

constexpr double GB = 1e9;
double bytes_per_s(double gbps) {
  return gbps * 1e9 / 8;
}
constexpr double TICK_S = 1e-6; // flows end on the microsecond clock

const failure::FailureModeSpec& LINK = test::LINK_FAULT;
const failure::FailureModeSpec& GPU = test::GPU_FAULT;
const failure::FailureModeSpec& LOOP = test::LOOP_FAULT;

/// Host memory (one peer replica, replicate_gbps per GPU) then a shared object store.
storage::StorageSpec storage_spec(double uplink_gbps, double store_write_gbps, int peers) {
  storage::StorageSpec s;
  s.rack_uplink_gbps = uplink_gbps;
  s.tiers.push_back({"mem", storage::TierKind::HOST_MEMORY, 1600, 1600, 240, peers, 100});
  s.tiers.push_back(
      {"store", storage::TierKind::OBJECT_STORE, store_write_gbps, 2 * store_write_gbps, 1e8, 0, 0});
  return s;
}

storage::CheckpointPlan plan(const storage::StorageSpec& s, int gpus, int racks, double size_bytes) {
  workload::JobSpec j;
  j.name = "j";
  j.gpus = gpus;
  j.checkpoint.tiers = {"mem", "store"};
  j.checkpoint.async = true;
  return storage::plan_checkpoint(j, size_bytes, s, {LINK, GPU, LOOP}, racks);
}

/// A platform holding only the storage network of `plans`, bound to its own queue.
struct Rig {
  std::vector<std::optional<storage::CheckpointPlan>> plans;
  sim::Platform platform{"storage-test"};
  sim::EventQueue queue;
  std::unique_ptr<storage::StorageNetwork> network;
  std::unique_ptr<storage::StorageTraffic> traffic;

  explicit Rig(std::vector<std::optional<storage::CheckpointPlan>> p) : plans(std::move(p)) {
    network = std::make_unique<storage::StorageNetwork>(platform, plans);
    platform.seal();
    platform.bind(queue);
    traffic = std::make_unique<storage::StorageTraffic>(*network, platform, queue, plans);
  }
};

} // namespace

TEST_CASE("storage flows: one drain of S bytes through a bottleneck of B Gb/s takes S / B",
          "[unit][storage]") {
  const double S = 2000 * GB;
  // One rack: its 1,000 Gb/s uplink, not the store's 4,000, is the bottleneck; no peers.
  const auto s = storage_spec(1000, 4000, 0);
  Rig rig({plan(s, 64, 1, S)});
  rig.queue.at(sim::to_ticks(10), [&] { CHECK(rig.traffic->snapshot(0, false) == 1); });
  rig.platform.run_until(sim::to_ticks(3600));
  const auto& m = rig.traffic->measured(0);
  REQUIRE(m.drains == 1);
  CHECK(m.drain_s_max == Approx(S / bytes_per_s(1000)).margin(TICK_S));
  // ... which is the plan's closed form: the copy is in the store durable_s - write_s after the snapshot.
  CHECK(m.drain_s_max == Approx(rig.plans[0]->durable_s - rig.plans[0]->write_s).margin(TICK_S));
}

TEST_CASE("storage flows: N equal writers sharing the store get B / N each", "[unit][storage]") {
  const double S = 1000 * GB;
  {
    const auto s = storage_spec(1000, 3000, 0); // 8 racks: 8,000 Gb/s of uplink each, the store binds
    const int N = 4;
    std::vector<std::optional<storage::CheckpointPlan>> plans;
    for (int j = 0; j < N; ++j)
      plans.emplace_back(plan(s, 512, 8, S));
    Rig rig(plans);
    rig.queue.at(0, [&] {
      for (int j = 0; j < N; ++j)
        rig.traffic->snapshot(j, false);
    });
    rig.platform.run_until(sim::to_ticks(3600));
    for (int j = 0; j < N; ++j) {
      INFO("job " << j);
      CHECK(rig.traffic->measured(j).drain_s_max == Approx(N * S / bytes_per_s(3000)).margin(TICK_S));
    }
  }
}

TEST_CASE("storage flows: a writer capped by its uplink keeps its cap, the others share the rest (max-min)",
          "[unit][storage]") {
  const double S = 1000 * GB;
  {
    // Store 3,000 Gb/s; job 0 on one rack (500 Gb/s uplink), jobs 1 and 2 on 8 racks (4,000 each).
    // Max-min: job 0 gets 500, jobs 1 and 2 get (3,000 - 500) / 2 = 1,250 each until they end.
    const auto s = storage_spec(500, 3000, 0);
    Rig rig({plan(s, 64, 1, S), plan(s, 512, 8, S), plan(s, 512, 8, S)});
    rig.queue.at(0, [&] {
      for (int j = 0; j < 3; ++j)
        rig.traffic->snapshot(j, false);
    });
    rig.platform.run_until(sim::to_ticks(3600));
    CHECK(rig.traffic->measured(0).drain_s_max == Approx(S / bytes_per_s(500)).margin(TICK_S));
    CHECK(rig.traffic->measured(1).drain_s_max == Approx(S / bytes_per_s(1250)).margin(TICK_S));
    CHECK(rig.traffic->measured(2).drain_s_max == Approx(S / bytes_per_s(1250)).margin(TICK_S));
  }
}

TEST_CASE("storage flows: a job drains one checkpoint at a time, the newest waiting", "[unit][storage]") {
  const double S = 1000 * GB;
  const auto s = storage_spec(8000, 1000, 1); // a drain takes replicate + 8 s: S / (1,000 Gb/s)
  Rig rig({plan(s, 512, 8, S)});
  const auto& p = *rig.plans[0];
  const double replicate_s = S / 512 / bytes_per_s(100);
  const double drain_s = replicate_s + S / bytes_per_s(1000);
  REQUIRE(drain_s == Approx(p.durable_s - p.write_s));
  std::vector<int> at_risk;
  rig.queue.at(0, [&] { at_risk.push_back(rig.traffic->snapshot(0, false)); });
  // Three more while the first drains: the second waits, the third replaces it, the fourth the third
  // (two skipped); all four are at risk until one is durable everywhere.
  for (double t : {1.0, 2.0, 3.0})
    rig.queue.at(sim::to_ticks(t), [&] { at_risk.push_back(rig.traffic->snapshot(0, false)); });
  int lost_gpu = -1, lost_link = -1;
  rig.queue.at(sim::to_ticks(4.0), [&] {
    // A link fault loses no memory: nothing is lost. A GPU fault needs the peers' copy, which only the
    // first (its replication long done, its store hop in flight) has: the three newer are lost.
    CHECK(rig.traffic->lost(0, 3) == 0); // a cause beyond the modes (a thermal shutdown) keeps every copy
    lost_link = rig.traffic->lost(0, 0);
    lost_gpu = rig.traffic->lost(0, 1);
  });
  rig.platform.run_until(sim::to_ticks(3600));
  CHECK(at_risk == std::vector<int>{1, 2, 3, 4});
  CHECK(lost_link == 0);
  CHECK(lost_gpu == 3);
  const auto& m = rig.traffic->measured(0);
  CHECK(m.skipped == 2);
  CHECK(m.drains == 1); // the waiting one was lost with the GPU fault: it never drained
  CHECK(m.drain_s_max == Approx(drain_s).margin(TICK_S));
}

TEST_CASE("storage flows: a restore reads the restore tier; an unreachable tier falls back to the next",
          "[unit][storage]") {
  const double S = 1000 * GB;
  const auto s = storage_spec(8000, 1000, 1);
  Rig rig({plan(s, 512, 8, S)});
  const auto& p = *rig.plans[0];
  double read_gpu = -1, read_loop = -1, read_fallback = -1;
  rig.queue.at(0, [&] {
    rig.traffic->load(0, 1, [&] { read_gpu = sim::to_seconds(rig.queue.now()); }); // from peers' memory
  });
  rig.queue.at(sim::to_ticks(100), [&] {
    rig.traffic->load(0, 2, [&] { read_loop = sim::to_seconds(rig.queue.now()) - 100; }); // from the store
  });
  rig.queue.at(sim::to_ticks(200), [&] {
    // The peers' link is down: the load after a GPU fault reads the store instead.
    rig.platform.set_link_on(rig.network->peers_link(0).up, false);
    rig.traffic->load(0, 1, [&] { read_fallback = sim::to_seconds(rig.queue.now()) - 200; });
  });
  rig.platform.run_until(sim::to_ticks(3600));
  CHECK(read_gpu == Approx(p.load_s[1]).margin(TICK_S));
  CHECK(read_loop == Approx(p.load_s[2]).margin(TICK_S));
  CHECK(read_fallback == Approx(S / bytes_per_s(2000)).margin(TICK_S));
  CHECK(rig.traffic->measured(0).loads == 3);
}

TEST_CASE("storage flows: an object store outage stops drains at the tier before it and holds restores until it is back",
          "[unit][storage]") {
  const double S = 1000 * GB;
  const auto s = storage_spec(8000, 1000, 1); // mem (one peer) then the store
  Rig rig({plan(s, 512, 8, S)});
  const double replicate_s = S / 512 / bytes_per_s(100);
  std::vector<int> lost;
  double loaded = -1;
  rig.queue.at(0, [&] { rig.traffic->snapshot(0, false); }); // drained in full before the outage
  rig.queue.at(sim::to_ticks(100), [&] { rig.traffic->store_changed("store", 0); });
  rig.queue.at(sim::to_ticks(200), [&] { rig.traffic->snapshot(0, false); }); // reaches the peers only
  rig.queue.at(sim::to_ticks(300), [&] { rig.traffic->snapshot(0, false); });
  rig.queue.at(sim::to_ticks(400), [&] {
    // A GPU fault needs the peers' copy (the 300 s one has it); a cooling loop needs the store's: both
    // checkpoints taken during the outage are lost, the one from before it stays.
    lost.push_back(rig.traffic->lost(0, 1));
    lost.push_back(rig.traffic->lost(0, 2));
    // Its restore reads the store: it fails, and retries every 60 s until the store is back at 500 s.
    rig.traffic->load(0, 2, [&] { loaded = sim::to_seconds(rig.queue.now()); });
  });
  rig.queue.at(sim::to_ticks(500), [&] { rig.traffic->store_changed("store", 1); });
  rig.platform.run_until(sim::to_ticks(3600));
  CHECK(lost == std::vector<int>{0, 2});
  CHECK(rig.traffic->measured(0).drains == 1);
  CHECK(replicate_s < 100); // the outage's snapshots did reach their peers before the next came
  // Retries at 460 and 520 s: the one at 520 s reads S at the store's 2,000 Gb/s.
  CHECK(loaded == Approx(520 + S / bytes_per_s(2000)).margin(TICK_S));
}

TEST_CASE("storage flows: a synchronous checkpoint written while the object store is out of reach stops before it",
          "[unit][storage]") {
  const double S = 1000 * GB;
  auto s = storage_spec(8000, 1000, 1);
  workload::JobSpec j;
  j.name = "j";
  j.gpus = 512;
  j.checkpoint.tiers = {"mem", "store"};
  Rig rig({storage::plan_checkpoint(j, S, s, {LINK, GPU, LOOP}, 8)});
  std::vector<int> at_risk, lost;
  rig.queue.at(0, [&] { at_risk.push_back(rig.traffic->snapshot(0, false)); }); // through both tiers
  rig.queue.at(sim::to_ticks(10), [&] { rig.traffic->store_changed("store", 0); });
  rig.queue.at(sim::to_ticks(20), [&] { at_risk.push_back(rig.traffic->snapshot(0, false)); }); // memory and peers
  rig.queue.at(sim::to_ticks(30), [&] {
    lost.push_back(rig.traffic->lost(0, 1)); // a GPU fault: the peers' copy of the 20 s checkpoint serves
    lost.push_back(rig.traffic->lost(0, 2)); // a cooling loop: only the store's, from 0 s
  });
  rig.platform.run_until(sim::to_ticks(100));
  CHECK(at_risk == std::vector<int>{0, 1});
  CHECK(lost == std::vector<int>{0, 1});
  CHECK(rig.traffic->measured(0).drains == 0); // synchronous: nothing drains in the background
}

TEST_CASE("storage flows: a degraded object store slows the flows through it to its remaining share", "[unit][storage]") {
  const double S = 1000 * GB;
  const auto s = storage_spec(8000, 1000, 0); // healthy: S / (1,000 Gb/s) = 8 s into the store
  Rig rig({plan(s, 512, 8, S)});
  rig.queue.at(0, [&] { rig.traffic->store_changed("store", 0.25); });
  rig.queue.at(sim::to_ticks(1), [&] { rig.traffic->snapshot(0, false); });  // at a quarter: 32 s
  rig.queue.at(sim::to_ticks(40), [&] { rig.traffic->store_changed("store", 1); });
  rig.queue.at(sim::to_ticks(50), [&] { rig.traffic->snapshot(0, false); }); // repaired: 8 s
  std::vector<double> drains;
  rig.queue.at(sim::to_ticks(45), [&] { drains.push_back(rig.traffic->measured(0).drain_s_max); });
  rig.platform.run_until(sim::to_ticks(3600));
  const auto& m = rig.traffic->measured(0);
  REQUIRE(drains.size() == 1);
  CHECK(drains[0] == Approx(4 * S / bytes_per_s(1000)).margin(TICK_S));
  CHECK(m.drains == 2);
  CHECK(m.drain_s_sum - drains[0] == Approx(S / bytes_per_s(1000)).margin(TICK_S));
}
