#include "models/ledger/cluster_ledger.hpp"

#include "sim/rng.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

TEST_CASE("cluster GPU-time is conserved exactly whatever the category changes", "[unit][cluster_ledger]") {
  const int gpus = 500;
  std::vector<sched::Category> cat(gpus, sched::Category::IDLE);
  ledger::ClusterLedger ledger(gpus, [&cat](int g) { return cat[static_cast<std::size_t>(g)]; }, 0);
  sim::Rng rng(9);
  sim::Tick now = 0;
  for (int i = 0; i < 20000; ++i) {
    now += static_cast<sim::Tick>(rng.below(1'000'000));
    const int g = static_cast<int>(rng.below(gpus));
    cat[static_cast<std::size_t>(g)] = static_cast<sched::Category>(rng.below(4));
    ledger.touch(g, now);
  }
  ledger.finish(now);
  CHECK(ledger.total() == static_cast<ledger::GpuTicks>(gpus) * now);
  int counted = 0;
  for (int c = 0; c < 4; ++c)
    counted += ledger.count(static_cast<sched::Category>(c));
  CHECK(counted == gpus);
}

TEST_CASE("GPU-time accrues to the category a GPU is in", "[unit][cluster_ledger]") {
  std::vector<sched::Category> cat(2, sched::Category::IDLE);
  ledger::ClusterLedger ledger(2, [&cat](int g) { return cat[static_cast<std::size_t>(g)]; }, 0);
  cat[0] = sched::Category::REPAIR;
  ledger.touch(0, sim::hours_to_ticks(1));
  ledger.finish(sim::hours_to_ticks(3));
  // GPU 0: 1 h idle then 2 h repair; GPU 1: 3 h idle.
  CHECK(ledger::to_gpu_hours(ledger.gpu_ticks(sched::Category::IDLE)) == Approx(4.0));
  CHECK(ledger::to_gpu_hours(ledger.gpu_ticks(sched::Category::REPAIR)) == Approx(2.0));
}
