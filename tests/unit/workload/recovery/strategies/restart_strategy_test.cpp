// Recovery strategy restart (recovery/strategies/restart_strategy.cpp) on one job, engine-free, against a
// timeline worked out by hand. Timing (job_fixture.hpp): step 1 s, compute 100 s between checkpoints, write
// 10 s, restart 50 s: restart 0-50, compute 50-150, checkpoint 150-160, compute 160-200 before any failure.
#include "models/workload/recovery/registry.hpp"
#include "tests/unit/workload/job_fixture.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using workload::JobTime;
using test::Fixture;

TEST_CASE("restart strategy: the default, first in the registry, with no keys of its own", "[unit][recovery]") {
  const auto& all = workload::recovery_strategies();
  REQUIRE(!all.empty());
  CHECK(all.front().name == "restart");
  CHECK(all.front().keys.empty());
  CHECK(workload::RecoverySpec{}.strategy == "restart");
}

TEST_CASE("restart strategy: a failure on two ranks interrupts the whole job, which loses its work since the "
          "checkpoint",
          "[unit][recovery]") {
  Fixture fx; // the default recovery: restart
  fx.start();
  // Struck at 200 (ranks 2 and 3 only): the 40 s since the checkpoint at 160 are lost (rework), every GPU
  // waits for the detection 200-210, restarts 210-260, computes 260-360, checkpoints 360-370 and computes
  // 370-400. Productive 100 + 100 + 30, restart 50 + 50, checkpoint 20, rework 40, detection 10: 400 s.
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2, 3}); });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(400);
  CHECK(fx.job->interruptions() == 1);
  CHECK(fx.job->group_drops() == 0);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 230);
  CHECK(fx.s(JobTime::REWORK) == 40);
  CHECK(fx.s(JobTime::DETECTION) == 10);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.s(JobTime::CHECKPOINT) == 20);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 0);
  fx.require_conserved();
}
