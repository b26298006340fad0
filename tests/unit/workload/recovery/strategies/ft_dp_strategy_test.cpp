// Fault-tolerant data parallelism (recovery/strategies/ft_dp_strategy.hpp) on one job, engine-free, against timelines worked
// out by hand. Common timing (job_fixture.hpp): 8 GPUs in 4 replica groups (ranks 2g and 2g + 1 form group
// g), step 1 s, compute 100 s between checkpoints, write 10 s, restart 50 s; stall σ 5 s, rejoin ρ 5 s.
// Before 200 s every test is the same: restart 0-50, compute 50-150, checkpoint 150-160, compute 160-200.
#include "models/workload/recovery/strategies/ft_dp_strategy.hpp"
#include "tests/unit/workload/job_fixture.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace dcsim;
using workload::JobTime;
using test::Fixture;

namespace {
void make_ft_dp(Fixture& fx, int groups, int min_groups = 1, double catchup_s = 0) {
  auto p = std::make_shared<workload::FtDpParams>();
  p->replica_groups = groups;
  p->dp = fx.spec.gpus;
  p->min_groups = min_groups;
  p->stall_s = 5;
  p->rejoin_s = 5;
  p->catchup_s = catchup_s;
  fx.spec.recovery.strategy = "ft_dp";
  fx.spec.recovery.params = p;
}
} // namespace

TEST_CASE("ft_dp: a drop hangs the job until detection, stalls σ, then runs at (N-1)/N", "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.down = {2};
  fx.start();
  // Group 1 fails at 200, detected at 210: every GPU waits 200-210 (the hang) and 210-215 (the quorum):
  // 15 s detection. Its GPU stays down, so 3 of 4 groups from 215: the 60 s of progress left take 80 s
  // (215-295: 60 productive, 20 reduced batch), checkpoint 295-305, then 95 s at 3/4 (71.25 + 23.75).
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2, 3}); });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(400);
  CHECK(fx.job->groups_out() == 1);
  CHECK(fx.s(JobTime::DETECTION) == 15);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 271.25);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 43.75);
  CHECK(fx.s(JobTime::CHECKPOINT) == 20);
  CHECK(fx.s(JobTime::REWORK) == 0);
  CHECK(fx.job->checkpoints() == 2);
  CHECK(fx.job->interruptions() == 0);
  CHECK(fx.job->group_drops() == 1);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a hang's detection time is charged even when nothing else is (no stall, no repair)",
          "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.start();
  // A hang of group 3 at 200 noticed only at 300: nobody progresses 200-300 (detection), and the drop's
  // stall follows (300-305). Counting the hang as progress (the failure's own date as the drop) would
  // give 5 s of detection and 95 s more of progress.
  fx.at(200, [&] { fx.job->on_struck(1, 0, {6}); });
  fx.at(300, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(304);
  CHECK(fx.s(JobTime::DETECTION) == 104);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 140);
  CHECK(fx.job->groups_out() == 1); // back at once (its GPU is up), it rejoins when the stall ends
  fx.require_conserved();
}

TEST_CASE("ft_dp: each group rejoins when its own GPUs are back, not when the whole job is clean",
          "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.down = {2, 4};
  fx.start();
  // Group 1 fails at 200 (detected 210: detection 200-215), 215-230 at 3/4 (11.25 + 3.75); group 2 fails
  // at 230 (detected 240: detection 230-245), 245-250 at 2/4 (2.5 + 2.5); group 1's GPU is repaired at
  // 250: it rejoins (250-255, restart) while group 2 is still out: 255-300 at 3/4 (33.75 + 11.25).
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2}); });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.at(230, [&] { fx.job->on_struck(2, 0, {4}); });
  fx.at(240, [&] { fx.job->on_failure_detected(2); });
  fx.at(250, [&] {
    fx.down.erase(2);
    fx.job->on_capacity_changed();
  });
  fx.finish_at(300);
  CHECK(fx.job->groups_out() == 1);
  CHECK(fx.s(JobTime::DETECTION) == 30);
  CHECK(fx.s(JobTime::RESTART) == 55);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 17.5);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 187.5);
  CHECK(fx.job->group_drops() == 2);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a swap-in and a catch-up stall only the absent group", "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4, 1, 10);
  fx.start();
  fx.recover_extra = sim::to_ticks(20); // every recovery swaps in a warm spare: 20 s
  // Group 1 fails at 200, detected at 210 (detection 200-215): a spare is swapped in (20 s) and the group
  // catches up from its peers (10 s), all while the others train at 3/4 (215-240: 18.75 + 6.25); it
  // rejoins 240-245 (restart, ρ only); the 41.25 s left run 245-286.25, checkpoint 286.25-296.25, compute
  // 296.25-300. The swap charged to the whole job (as a restart's would be) would add 30 s of restart.
  fx.at(200, [&] { fx.job->on_struck(1, 0, {3}); });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(300);
  CHECK(fx.job->groups_out() == 0);
  CHECK(fx.s(JobTime::DETECTION) == 15);
  CHECK(fx.s(JobTime::RESTART) == 55); // the launch's 50 and ρ
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 6.25);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 203.75);
  CHECK(fx.s(JobTime::CHECKPOINT) == 20);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a swap-in is spent by the group it brings back, not by the group whose detection ran it",
          "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.swap_down = true;                  // a recovery swaps spares in for every down GPU at once
  fx.recover_extra = sim::to_ticks(20); // and takes 20 s when it swapped any
  fx.start();
  // Group 1 (rank 2) fails at 200, group 2 (rank 4) at 205: the job hangs 200-215 (group 2 detected at
  // 215), stalls 215-220 (detection 20 s). Group 1's detection at 210 runs the recovery, which swaps both
  // GPUs in, 210-230: both groups are back at 230. So 220-230 at 2/4 (5 productive, 5 reduced batch), the
  // two rejoin 230-235 and 235-240 (ρ each), the 55 s left run 240-295, checkpoint 295-305 (5 s by 300).
  // Charging the swap only to group 1 (whose detection ran it) brought group 2 back at 215 with no swap-in:
  // it rejoined 220-225, then 225-230 at 3/4 (1.25 reduced batch), and 18.75 s of checkpoint by 300.
  fx.down = {2};
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2}); });
  fx.at(205, [&] {
    fx.down.insert(4);
    fx.job->on_struck(2, 0, {4});
  });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.at(215, [&] { fx.job->on_failure_detected(2); });
  fx.finish_at(300);
  CHECK(fx.job->groups_out() == 0);
  CHECK(fx.s(JobTime::DETECTION) == 20);
  CHECK(fx.s(JobTime::RESTART) == 60); // the launch's 50 and two ρ
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 5);
  CHECK(fx.s(JobTime::CHECKPOINT) == 15);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 200);
  // Loss by cause: the hang, the quorum stall and the rejoin are the failure mode's (cause 0), the launch
  // is a mechanism's; the groups out are groups_out's.
  CHECK(fx.s(JobTime::DETECTION, 0) == 20);
  CHECK(fx.s(JobTime::RESTART, 0) == 10);
  CHECK(fx.s(JobTime::RESTART, 1 + static_cast<int>(workload::Mechanism::LAUNCH)) == 50);
  CHECK(fx.s(JobTime::REDUCED_BATCH, 1 + static_cast<int>(workload::Mechanism::GROUPS_OUT)) == 5);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a failure during a hang extends it to its own detection", "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.down = {0, 2};
  fx.start();
  // Groups 1 (at 200) and 0 (at 205) fail; detected at 210 and 215: the job hangs 200-215 and re-forms
  // 215-220 (detection 20), then 2 of 4 groups: 80 s at 1/2 (40 + 40).
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2}); });
  fx.at(205, [&] { fx.job->on_struck(2, 0, {0}); });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.at(215, [&] { fx.job->on_failure_detected(2); });
  fx.finish_at(300);
  CHECK(fx.job->groups_out() == 2);
  CHECK(fx.s(JobTime::DETECTION) == 20);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 40);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 180);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a failure of a group already out stalls no one and keeps it out until detected",
          "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.start();
  // Group 1 fails at 200 (detected 210: back at once, it would rejoin when the stall ends at 215); struck
  // again at 212 it waits for that failure's detection (260): 215-260 at 3/4 (33.75 + 11.25), rejoin
  // 260-265, the 26.25 s left 265-291.25, checkpoint 291.25-300 (8.75 s kept at the end).
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2}); });
  fx.at(210, [&] { fx.job->on_failure_detected(1); });
  fx.at(212, [&] { fx.job->on_struck(2, 0, {3}); });
  fx.at(260, [&] { fx.job->on_failure_detected(2); });
  fx.finish_at(300);
  CHECK(fx.job->groups_out() == 0);
  CHECK(fx.s(JobTime::DETECTION) == 15);
  CHECK(fx.s(JobTime::RESTART) == 55);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 11.25);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 200);
  CHECK(fx.job->group_drops() == 1);
  CHECK(fx.job->failures_by_mode()[0] == 2);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a failure leaving fewer than min_groups groups restarts the whole job", "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 2);
  fx.down = {0};
  fx.start();
  // Group 0 (ranks 0-3) drops at 200 (detected 205: detection 200-210); 210-225 at 1/2: 7.5 + 7.5; group 1
  // fails at 225: an interruption, the 40 + 15 s pending since the checkpoint are rework; detection
  // 225-240, restart 240-290, compute 290-390, checkpoint 390-400.
  fx.at(200, [&] { fx.job->on_struck(1, 0, {0}); });
  fx.at(205, [&] { fx.job->on_failure_detected(1); });
  fx.at(225, [&] { fx.job->on_struck(2, 0, {5}); });
  fx.at(240, [&] { fx.job->on_failure_detected(2); });
  fx.finish_at(400);
  CHECK(fx.job->groups_out() == 0);
  CHECK(fx.s(JobTime::REWORK) == 55);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 0);
  CHECK(fx.s(JobTime::DETECTION) == 25);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 200);
  CHECK(fx.job->interruptions() == 1);
  CHECK(fx.job->group_drops() == 1);
  fx.require_conserved();
}

TEST_CASE("ft_dp: a failure during a fabric stall drops its group, the hang replacing the rest", "[unit][ft_dp]") {
  Fixture fx;
  make_ft_dp(fx, 4);
  fx.down = {4};
  fx.start();
  // Fabric stall from 200 (degraded while it lasts); the failure at 205 (detected 208) ends it: hang and
  // quorum 205-213 (detection), then 3 of 4 groups: the 60 s of progress left take 80 s (213-293),
  // checkpoint 293-300 (kept at the end).
  fx.at(200, [&] { fx.job->stall(sim::to_ticks(20)); });
  fx.at(205, [&] { fx.job->on_struck(1, 0, {4}); });
  fx.at(208, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(300);
  CHECK(fx.s(JobTime::DEGRADED) == 5);
  CHECK(fx.s(JobTime::DETECTION) == 8);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 200);
  CHECK(fx.s(JobTime::REDUCED_BATCH) == 20);
  CHECK(fx.s(JobTime::CHECKPOINT) == 17);
  CHECK(fx.job->interruptions() == 0);
  fx.require_conserved();
}

TEST_CASE("recovery strategies: the registry builds the one the spec names", "[unit][ft_dp]") {
  Fixture fx;
  fx.start();
  CHECK_FALSE(fx.job->wants_ranks()); // restart: failures interrupt
  fx.at(200, [&] { fx.job->on_struck(1, 0, {2}); });
  fx.finish_at(210);
  CHECK(fx.job->interruptions() == 1);
  Fixture ft;
  make_ft_dp(ft, 4);
  ft.start();
  CHECK(ft.job->wants_ranks());
}
