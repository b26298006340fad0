// A checkpoint's plan over storage tiers against the closed forms of storage/checkpoint_plan.hpp.
#include "models/storage/checkpoint_plan.hpp"

#include "models/workload/transformer_flops.hpp"

#include "tests/support/failure_modes.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

namespace {

constexpr double GB = 1e9;
double bytes_per_s(double gbps) { return gbps * 1e9 / 8; }

const failure::FailureModeSpec& GPU = test::GPU_FAULT;
const failure::FailureModeSpec& RACK = test::RACK_FAULT;
const failure::FailureModeSpec& LINK = test::LINK_FAULT;
const failure::FailureModeSpec& LOOP = test::LOOP_FAULT;

storage::StorageSpec two_tiers() {
  storage::StorageSpec s;
  s.rack_uplink_gbps = 1000;
  s.tiers.push_back({"mem", storage::TierKind::HOST_MEMORY, 800, 1600, 240, 1, 100});
  s.tiers.push_back({"store", storage::TierKind::OBJECT_STORE, 4000, 8000, 1e8, 0, 0});
  return s;
}

workload::JobSpec job(int gpus, std::vector<std::string> tiers, bool async) {
  workload::JobSpec j;
  j.name = "j";
  j.gpus = gpus;
  j.checkpoint.tiers = std::move(tiers);
  j.checkpoint.async = async;
  return j;
}

} // namespace

TEST_CASE("one write of S bytes through a bottleneck of B Gb/s takes S / B", "[unit][storage]") {
  const double S = 2000 * GB;
  const auto s = two_tiers();
  // 64 GPUs on 1 rack: the rack's uplink (1,000 Gb/s) is the bottleneck to the object store (4,000 Gb/s).
  auto p = storage::plan_checkpoint(job(64, {"store"}, false), S, s, {GPU}, 1);
  CHECK(p.write_s == Approx(S / bytes_per_s(1000)).epsilon(1e-12));
  // On 8 racks the store's own 4,000 Gb/s is.
  p = storage::plan_checkpoint(job(512, {"store"}, false), S, s, {GPU}, 8);
  CHECK(p.write_s == Approx(S / bytes_per_s(4000)).epsilon(1e-12));
  CHECK(p.durable_s == p.write_s);
  CHECK(p.load_s.at(0) == Approx(S / bytes_per_s(8000)).epsilon(1e-12));
}

TEST_CASE("an asynchronous checkpoint blocks for the snapshot; its copy drains in the background", "[unit][storage]") {
  const double S = 512 * GB;
  const int G = 512;
  const auto s = two_tiers();
  const auto p = storage::plan_checkpoint(job(G, {"mem", "store"}, true), S, s, {LINK, GPU, LOOP}, 8);
  const double snapshot = S / G / bytes_per_s(800);
  const double replicate = S / G / bytes_per_s(100); // one peer replica
  const double store = S / bytes_per_s(4000);
  CHECK(p.write_s == Approx(snapshot).epsilon(1e-12));
  CHECK(p.durable_s == Approx(snapshot + replicate + store).epsilon(1e-12));
  // A link fault loses no memory: the snapshot itself is the recovery point, read back locally.
  CHECK(p.restore_tier[0] == 0);
  CHECK(p.loss_window_s[0] == 0);
  CHECK(p.load_s[0] == Approx(S / G / bytes_per_s(1600)).epsilon(1e-12));
  // A GPU fault takes its node: the copy counts once at its peer, and the lost shard comes back from there.
  CHECK(p.restore_tier[1] == 0);
  CHECK(p.loss_window_s[1] == Approx(replicate).epsilon(1e-12));
  CHECK(p.load_s[1] == Approx(replicate).epsilon(1e-12));
  // A cooling loop takes many racks, peers too: only the object store's copy counts.
  CHECK(p.restore_tier[2] == 1);
  CHECK(p.loss_window_s[2] == Approx(replicate + store).epsilon(1e-12));
  CHECK(p.load_s[2] == Approx(S / bytes_per_s(8000)).epsilon(1e-12));
}

TEST_CASE("the same chain written synchronously blocks until the last tier and never falls back", "[unit][storage]") {
  const double S = 512 * GB;
  const auto p = storage::plan_checkpoint(job(512, {"mem", "store"}, false), S, two_tiers(), {GPU, LOOP}, 8);
  CHECK(p.write_s == Approx(S / 512 / bytes_per_s(800) + S / 512 / bytes_per_s(100) + S / bytes_per_s(4000)).epsilon(1e-12));
  CHECK(p.loss_window_s == std::vector<double>{0, 0});
}

TEST_CASE("which copies survive which failures", "[unit][storage]") {
  storage::TierSpec mem{"m", storage::TierKind::HOST_MEMORY, 1, 1, 1, 0, 1};
  storage::TierSpec peers = mem;
  peers.peer_replicas = 1;
  storage::TierSpec nvme{"n", storage::TierKind::LOCAL_NVME, 1, 1, 1, 0, 0};
  storage::TierSpec cache{"c", storage::TierKind::RACK_CACHE, 1, 1, 1, 0, 0};
  storage::TierSpec store{"s", storage::TierKind::OBJECT_STORE, 1, 1, 1, 0, 0};
  const auto TRAY = test::failure_mode("tray", failure::Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::TRAY));
  struct Row {
    const storage::TierSpec* tier;
    std::vector<bool> survives; // link, gpu, tray, rack, loop
  };
  for (const Row& r : {Row{&mem, {true, false, false, false, false}}, Row{&peers, {true, true, true, true, false}},
                       Row{&nvme, {true, true, false, false, false}}, Row{&cache, {true, true, true, false, false}},
                       Row{&store, {true, true, true, true, true}}}) {
    std::vector<bool> got;
    for (const auto* m : {&LINK, &GPU, &TRAY, &RACK, &LOOP})
      got.push_back(storage::copy_survives(*r.tier, *m));
    CHECK(got == r.survives);
  }
}

TEST_CASE("a chain that keeps no copy through a failure mode, or overflows a tier, is refused", "[unit][storage]") {
  auto s = two_tiers();
  try {
    storage::plan_checkpoint(job(64, {"mem"}, true), 64 * GB, s, {GPU, LOOP}, 1);
    FAIL("no exception");
  } catch (const storage::PlanProblem& e) {
    CHECK(e.key == "tiers");
    CHECK(std::string(e.what()) == "keeps no copy that survives failure mode \"loop\" (scope loop): end the chain with a "
                                   "tier that does (an object_store survives every failure)");
  }
  try { // 64 GPUs: 1,000 GB each with its peer's copy = 2,000 GB > 240 GB
    storage::plan_checkpoint(job(64, {"mem", "store"}, true), 64000 * GB, s, {GPU}, 1);
    FAIL("no exception");
  } catch (const storage::PlanProblem& e) {
    CHECK(std::string(e.what()) == "tier \"mem\" keeps 2000 GB of this checkpoint per unit, more than its capacity_gb (240)");
  }
  try {
    storage::plan_checkpoint(job(64, {"store", "mem"}, true), 64 * GB, s, {GPU}, 1);
    FAIL("no exception");
  } catch (const storage::PlanProblem& e) {
    CHECK(e.key == "async");
  }
}

TEST_CASE("a model's checkpoint: 14 bytes per parameter", "[unit][storage]") {
  workload::ModelJobSpec m;
  m.model.layers = 2;
  m.model.hidden = 1024;
  m.model.heads = 8;
  m.model.kv_heads = 8;
  m.model.ffn_hidden = 4096;
  m.model.vocab = 32000;
  m.model.seq_len = 2048;
  CHECK(storage::model_checkpoint_bytes(m) == Approx(14.0 * workload::total_params(m.model)).epsilon(1e-15));
  CHECK(storage::model_checkpoint_bytes(m) > 14.0 * 2 * 12 * 1024 * 1024); // at least 12 h^2 per layer
}
