// The training job's state machine, engine-free, against timelines worked out by hand.
// Common timing: step 1 s, interval 100 s, checkpoint write 10 s, restart 50 s.
#include "tests/unit/workload/job_fixture.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using workload::JobTime;
using test::Fixture;

TEST_CASE("no failures: restart, then cycles of 100 s compute + 10 s checkpoint", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  fx.finish_at(1000);
  // Running from 50 s: 950 = 8 cycles of 110 s + 70 s of compute kept at the end.
  CHECK(fx.s(JobTime::RESTART) == 50);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 870);
  CHECK(fx.s(JobTime::CHECKPOINT) == 80);
  CHECK(fx.job->checkpoints() == 8);
  fx.require_conserved();
}

TEST_CASE("a failure loses the work since the last checkpoint", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  // Checkpoint done at 160 s; failure at 200 s (40 s of compute lost); detected at 230 s; restart to 280 s;
  // then compute 280-380, checkpoint 380-390, compute 390-400 (kept at the end).
  fx.at(200, [&] { fx.job->on_failure(1, 0); });
  fx.at(230, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(400);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 210);
  CHECK(fx.s(JobTime::CHECKPOINT) == 20);
  CHECK(fx.s(JobTime::REWORK) == 40);
  CHECK(fx.s(JobTime::DETECTION) == 30);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.job->interruptions() == 1);
  fx.require_conserved();
}

TEST_CASE("a failure during a checkpoint write loses the write and the compute before it", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  fx.at(155, [&] { fx.job->on_failure(1, 0); }); // checkpoint 150-160 interrupted
  fx.at(155, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(205); // restart 155-205
  CHECK(fx.s(JobTime::REWORK) == 105);
  CHECK(fx.s(JobTime::CHECKPOINT) == 0);
  CHECK(fx.s(JobTime::RESTART) == 100);
  fx.require_conserved();
}

TEST_CASE("detection lasts until every failure of the job's GPUs is detected", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  fx.at(100, [&] { fx.job->on_failure(1, 0); });
  fx.at(120, [&] { fx.job->on_failure(2, 0); }); // during detection: not another interruption
  fx.at(130, [&] { fx.job->on_failure_detected(1); });
  fx.at(170, [&] { fx.job->on_failure_detected(2); });
  fx.finish_at(220); // restart 170-220
  CHECK(fx.s(JobTime::DETECTION) == 70);
  CHECK(fx.s(JobTime::REWORK) == 50);
  CHECK(fx.job->interruptions() == 1);
  CHECK(fx.job->failures_by_mode()[0] == 2);
  fx.require_conserved();
}

TEST_CASE("without replacements the job waits until capacity returns", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  fx.at(100, [&] {
    fx.healthy = false;
    fx.job->on_failure(1, 0);
  });
  fx.at(110, [&] { fx.job->on_failure_detected(1); }); // no spare: waiting
  fx.at(300, [&] { fx.job->on_capacity_changed(); });  // still nothing
  fx.at(400, [&] {
    fx.healthy = true;
    fx.job->on_capacity_changed();
  });
  fx.finish_at(450);
  CHECK(fx.s(JobTime::WAITING) == 290);
  CHECK(fx.s(JobTime::RESTART) == 100);
  fx.require_conserved();
}

TEST_CASE("a slowdown turns part of the compute time into degraded time", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  fx.at(100, [&] { fx.job->set_slowdown(2.0); }); // 50 s done; 50 s of progress left take 100 s
  fx.finish_at(210);                              // checkpoint 200-210
  CHECK(fx.s(JobTime::PRODUCTIVE) == 100);
  CHECK(fx.s(JobTime::DEGRADED) == 50);
  CHECK(fx.s(JobTime::CHECKPOINT) == 10);
  CHECK(fx.job->checkpoints() == 1);
  fx.require_conserved();
}

TEST_CASE("a planned stop checkpoints at once, stops, then restarts", "[unit][training_job]") {
  Fixture fx;
  fx.timing.planned_every = sim::to_ticks(120);
  fx.timing.planned_downtime = sim::to_ticks(30);
  fx.start();
  // At 120 s: 70 s of compute since 50 s -> checkpoint 120-130 -> maintenance 130-160 -> restart 160-210.
  fx.finish_at(210);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 70);
  CHECK(fx.s(JobTime::CHECKPOINT) == 10);
  CHECK(fx.s(JobTime::MAINTENANCE) == 30);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.job->interruptions_planned() == 1);
  CHECK(fx.job->interruptions() == 0);
  fx.require_conserved();
}

TEST_CASE("a failure during a planned stop is no interruption but must be detected", "[unit][training_job]") {
  Fixture fx;
  fx.timing.planned_every = sim::to_ticks(120);
  fx.timing.planned_downtime = sim::to_ticks(30);
  fx.start();
  fx.at(140, [&] { fx.job->on_failure(1, 0); });          // during maintenance 130-160
  fx.at(170, [&] { fx.job->on_failure_detected(1); });    // detection 160-170
  fx.finish_at(220);                                      // restart 170-220
  CHECK(fx.job->interruptions() == 0);
  CHECK(fx.s(JobTime::DETECTION) == 10);
  CHECK(fx.s(JobTime::MAINTENANCE) == 30);
  fx.require_conserved();
}

TEST_CASE("a slowdown set during a write applies from the next run phase", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  // Write 150-160 unaffected; then 100 s of progress at half pace take 200 s (160-360); write 360-370.
  fx.at(155, [&] { fx.job->set_slowdown(2.0); });
  fx.finish_at(370);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 200);
  CHECK(fx.s(JobTime::DEGRADED) == 100);
  CHECK(fx.s(JobTime::CHECKPOINT) == 20);
  CHECK(fx.job->checkpoints() == 2); // the one completing exactly at the end counts
  fx.require_conserved();
}

TEST_CASE("whole cycles at a slowdown are skipped arithmetically", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  // From 50 s at s = 1.5: run ⌈150⌉ + write 10 = 160 s per cycle: checkpoints at 210, 370, 530; then
  // 75 s of running make ⌊75 / 1.5⌋ = 50 s of progress and 25 s degraded, kept at the end (605 s).
  fx.at(50, [&] { fx.job->set_slowdown(1.5); });
  fx.finish_at(605);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 350);
  CHECK(fx.s(JobTime::DEGRADED) == 175);
  CHECK(fx.s(JobTime::CHECKPOINT) == 30);
  CHECK(fx.job->checkpoints() == 3);
  fx.require_conserved();
}

TEST_CASE("a planned stop due exactly at a checkpoint needs no extra write", "[unit][training_job]") {
  Fixture fx;
  fx.timing.planned_every = sim::to_ticks(160); // the first checkpoint completes at 160 s
  fx.timing.planned_downtime = sim::to_ticks(30);
  fx.start();
  fx.finish_at(240); // maintenance 160-190, restart 190-240
  CHECK(fx.s(JobTime::PRODUCTIVE) == 100);
  CHECK(fx.s(JobTime::CHECKPOINT) == 10);
  CHECK(fx.s(JobTime::MAINTENANCE) == 30);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.job->checkpoints() == 1);
  fx.require_conserved();
}

TEST_CASE("a failure during the write before a planned stop: the stop follows detection", "[unit][training_job]") {
  Fixture fx;
  fx.timing.planned_every = sim::to_ticks(120);
  fx.timing.planned_downtime = sim::to_ticks(30);
  fx.start();
  // Planned at 120: write 120-130; failure at 125 loses 70 s of compute and 5 s of write; detection
  // 125-135; the planned work follows at once (135-165), then one restart (165-215), then running to
  // the end at 239 s (before the next planned stop at 240 s).
  fx.at(125, [&] { fx.job->on_failure(1, 0); });
  fx.at(135, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(239);
  CHECK(fx.s(JobTime::REWORK) == 75);
  CHECK(fx.s(JobTime::DETECTION) == 10);
  CHECK(fx.s(JobTime::MAINTENANCE) == 30);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 24);
  CHECK(fx.job->interruptions() == 1);
  CHECK(fx.job->interruptions_planned() == 1);
  fx.require_conserved();
}

TEST_CASE("a planned stop while waiting for capacity starts at once", "[unit][training_job]") {
  Fixture fx;
  fx.timing.planned_every = sim::to_ticks(120);
  fx.timing.planned_downtime = sim::to_ticks(30);
  fx.start();
  // Failure at 100 with no spare; detected 110: waiting. Planned work 120-150, waiting again 150-200,
  // capacity at 200: restart from 200 to the end at 235 s.
  fx.at(100, [&] {
    fx.healthy = false;
    fx.job->on_failure(1, 0);
  });
  fx.at(110, [&] { fx.job->on_failure_detected(1); });
  fx.at(200, [&] {
    fx.healthy = true;
    fx.job->on_capacity_changed();
  });
  fx.finish_at(235);
  CHECK(fx.s(JobTime::WAITING) == 60);
  CHECK(fx.s(JobTime::MAINTENANCE) == 30);
  CHECK(fx.s(JobTime::RESTART) == 85);
  CHECK(fx.s(JobTime::REWORK) == 50);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 0);
  fx.require_conserved();
}

TEST_CASE("failures during a restart interrupt it; failures while waiting do not count twice", "[unit][training_job]") {
  Fixture fx;
  fx.start();
  fx.at(20, [&] { fx.job->on_failure(1, 0); }); // during the initial restart: an interruption
  fx.at(30, [&] {
    fx.healthy = false;
    fx.job->on_failure_detected(1);
  }); // waiting from 30
  fx.at(40, [&] { fx.job->on_failure(2, 0); }); // while waiting: back to detection, no interruption
  fx.at(45, [&] {
    fx.healthy = true;
    fx.job->on_failure_detected(2);
  }); // restart 45-95
  fx.finish_at(95);
  CHECK(fx.job->interruptions() == 1);
  CHECK(fx.job->failures_by_mode()[0] == 2);
  CHECK(fx.s(JobTime::RESTART) == 20 + 50);
  CHECK(fx.s(JobTime::DETECTION) == 10 + 5);
  CHECK(fx.s(JobTime::WAITING) == 10);
  CHECK(fx.s(JobTime::REWORK) == 0);
  fx.require_conserved();
}

TEST_CASE("hold: a planned stop at a checkpoint until released, without losing work", "[unit][training_job]") {
  // Running from 50 s; hold at 120 s (70 s of compute pending): checkpoint written 120-130 s, stopped 130 s
  // (the `stopped` hook fires then), released at 200 s, restart 200-250 s, compute 250-300 s.
  Fixture fx;
  sim::Tick stopped_at = -1;
  int training_flips = 0;
  fx.start([&](bool) { ++training_flips; }, [&] { stopped_at = fx.q.now(); });
  fx.at(120, [&] { fx.job->hold(); });
  fx.at(200, [&] { fx.job->unhold(); });
  fx.finish_at(300);
  CHECK(stopped_at == sim::to_ticks(130));
  CHECK(fx.s(JobTime::PRODUCTIVE) == 120);
  CHECK(fx.s(JobTime::CHECKPOINT) == 10);
  CHECK(fx.s(JobTime::MAINTENANCE) == 70);
  CHECK(fx.s(JobTime::RESTART) == 100);
  CHECK(fx.s(JobTime::REWORK) == 0);
  CHECK(fx.job->interruptions() == 0);
  CHECK(fx.job->interruptions_planned() == 1);
  CHECK(training_flips == 4); // on at 50, off at 130, on at 250, off at finish
  fx.require_conserved();
}

TEST_CASE("hold: nested holds, and a job already stopped reports at once", "[unit][training_job]") {
  Fixture fx;
  int stops = 0;
  fx.start({}, [&] { ++stops; });
  fx.at(10, [&] { fx.job->hold(); });  // restarting: stops at once, nothing to save
  fx.at(20, [&] { fx.job->hold(); });  // already stopped: reports at once
  fx.at(30, [&] { fx.job->unhold(); });
  fx.at(40, [&] { fx.job->unhold(); }); // restart 40-90, compute 90-100
  fx.finish_at(100);
  CHECK(stops == 2);
  CHECK(fx.s(JobTime::MAINTENANCE) == 30);
  CHECK(fx.s(JobTime::RESTART) == 60);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 10);
  CHECK(fx.job->interruptions_planned() == 1);
  fx.require_conserved();
}

TEST_CASE("a stop requested during a planned stop's write is served once the job has stopped", "[unit][training_job]") {
  // Running from 50 s; a hold at 120 s writes a checkpoint 120-130 s; a stop requested at 125 s is served
  // at 130 s, when the job no longer trains: the scheduler may then take its GPUs (release) at once.
  Fixture fx;
  fx.start();
  sim::Tick served = -1;
  fx.at(120, [&] { fx.job->hold(); });
  fx.at(125, [&] {
    fx.job->request_stop([&] {
      served = fx.q.now();
      CHECK_FALSE(fx.job->training());
      fx.job->release(); // would throw while the job trains
    });
  });
  fx.q.run_until(sim::to_ticks(200));
  CHECK(fx.job->queued());
  fx.job->finish();
  CHECK(served == sim::to_ticks(130));
  CHECK(fx.s(JobTime::REWORK) == 0);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 70);
  fx.require_conserved();
}

// Asynchronous checkpoints (storage/checkpoint_plan.hpp): the write of 10 s is the snapshot; a failure of
// mode 0 loses a checkpoint younger than its loss window (the drain to the tier that survives it: 30 s).
TEST_CASE("a failure during an asynchronous drain falls back to the checkpoint before", "[unit][training_job]") {
  Fixture fx;
  fx.timing.loss_window = {sim::to_ticks(30)};
  fx.start();
  // Checkpoints end at 160 and 270 s. A failure at 280 s: the 270 s copy is 10 s old (< 30 s), lost; the
  // segment 160-270 (100 s compute + 10 s snapshot) and the 10 s since become rework.
  fx.at(280, [&] { fx.job->on_failure(1, 0); });
  fx.at(290, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(340); // restart 290-340
  CHECK(fx.s(JobTime::PRODUCTIVE) == 100);
  CHECK(fx.s(JobTime::CHECKPOINT) == 10);
  CHECK(fx.s(JobTime::REWORK) == 120);
  CHECK(fx.job->checkpoint_fallbacks() == 1);
  CHECK(fx.job->checkpoints() == 1);
  fx.require_conserved();
}

TEST_CASE("a failure after the drain keeps the last checkpoint", "[unit][training_job]") {
  Fixture fx;
  fx.timing.loss_window = {sim::to_ticks(30)};
  fx.start();
  // Failure at 300 s: the 270 s copy is 30 s old, durable: only the 30 s since are lost.
  fx.at(300, [&] { fx.job->on_failure(1, 0); });
  fx.at(310, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(360);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 200);
  CHECK(fx.s(JobTime::REWORK) == 30);
  CHECK(fx.job->checkpoint_fallbacks() == 0);
  fx.require_conserved();
}

TEST_CASE("a restart in parts: reschedule, initialisation, then the load the failure calls for", "[unit][training_job]") {
  Fixture fx;
  fx.timing.restart_parts = true;
  fx.timing.reschedule = sim::to_ticks(5);
  fx.timing.init = sim::to_ticks(15);
  fx.timing.restart = fx.timing.reschedule + fx.timing.init;
  fx.timing.load = {sim::to_ticks(40)};
  fx.timing.load_planned = sim::to_ticks(25);
  fx.start();
  // Launch 0-20 s (nothing to load), checkpoint 120-130, failure at 150 s, detected at 160 s, restart
  // 160-220 (5 + 15 + 40), interrupted at 170 s by a second failure (in its init), detected at 180 s,
  // restart 180-240; then training from 240 s to the end at 250 s.
  fx.at(150, [&] { fx.job->on_failure(1, 0); });
  fx.at(160, [&] { fx.job->on_failure_detected(1); });
  fx.at(170, [&] { fx.job->on_failure(2, 0); });
  fx.at(180, [&] { fx.job->on_failure_detected(2); });
  fx.finish_at(250);
  const auto& parts = fx.job->restart_part_time();
  auto part_s = [&](workload::RestartPart p) {
    return static_cast<double>(parts[static_cast<std::size_t>(p)] / fx.spec.gpus) / 1e6;
  };
  CHECK(part_s(workload::RestartPart::RESCHEDULE) == 15); // 5 + 5 + 5
  CHECK(part_s(workload::RestartPart::INIT) == 35);       // 15 + 5 (cut) + 15
  CHECK(part_s(workload::RestartPart::LOAD) == 40);
  CHECK(fx.s(JobTime::RESTART) == 90);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 110);
  fx.require_conserved();
}

TEST_CASE("storage flows: the snapshot hook runs at each commit; a failure loses what the storage says", "[unit][training_job]") {
  // Hooks as a StorageTraffic would answer them (storage_traffic_test.cpp plays the real flows): every
  // checkpoint stays at risk, and the failure at 420 s finds the two newest without a surviving copy.
  Fixture fx;
  std::vector<double> snapshots;
  int asked_mode = -1;
  workload::TrainingJob::Hooks hooks{[](sim::Tick&) { return true; }, [](int) { return std::string("m"); }, {}, {}};
  hooks.snapshot = [&](bool durable) {
    CHECK_FALSE(durable);
    snapshots.push_back(sim::to_seconds(fx.q.now()));
    return static_cast<int>(snapshots.size());
  };
  hooks.lost = [&](int mode) {
    asked_mode = mode;
    return 2;
  };
  hooks.load = [](int, std::function<void()> done) { done(); };
  fx.job = std::make_unique<workload::TrainingJob>(fx.spec, fx.timing, 1, fx.q, fx.log, hooks);
  fx.job->start();
  // Checkpoints end at 160, 270 and 380 s, each an event of its own (the hook sees its date). The failure
  // at 420 s loses the 40 s since and the segments 160-270 and 270-380 (2 x 110 s): 260 s of rework.
  fx.at(420, [&] { fx.job->on_failure(1, 0); });
  fx.at(430, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(480); // restart 430-480
  CHECK(snapshots == std::vector<double>{160, 270, 380});
  CHECK(asked_mode == 0);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 100);
  CHECK(fx.s(JobTime::CHECKPOINT) == 10);
  CHECK(fx.s(JobTime::REWORK) == 260);
  CHECK(fx.job->checkpoint_fallbacks() == 2);
  CHECK(fx.job->checkpoints() == 1);
  fx.require_conserved();
}

TEST_CASE("storage flows: a restart's load part lasts until the load hook's flow ends", "[unit][training_job]") {
  Fixture fx;
  fx.timing.restart_parts = true;
  fx.timing.reschedule = sim::to_ticks(5);
  fx.timing.init = sim::to_ticks(15);
  fx.timing.restart = fx.timing.reschedule + fx.timing.init;
  fx.timing.load = {sim::to_ticks(40)}; // the closed form: the flow decides instead
  std::vector<int> load_modes;
  workload::TrainingJob::Hooks hooks{[](sim::Tick&) { return true; }, [](int) { return std::string("m"); }, {}, {}};
  hooks.snapshot = [](bool) { return 0; };
  hooks.lost = [](int) { return 0; };
  hooks.load = [&](int mode, std::function<void()> done) {
    load_modes.push_back(mode);
    fx.q.after(sim::to_ticks(33), std::move(done)); // a flow of 33 s
  };
  fx.job = std::make_unique<workload::TrainingJob>(fx.spec, fx.timing, 1, fx.q, fx.log, hooks);
  fx.job->start();
  // Launch 0-20 s (nothing to load); checkpoint 120-130; failure at 150 s, detected at 160 s; restart
  // 160-213 (5 + 15 + the 33 s flow); training 213-250.
  fx.at(150, [&] { fx.job->on_failure(1, 0); });
  fx.at(160, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(250);
  const auto& parts = fx.job->restart_part_time();
  CHECK(static_cast<double>(parts[static_cast<std::size_t>(workload::RestartPart::LOAD)] / fx.spec.gpus) / 1e6 == 33);
  CHECK(load_modes == std::vector<int>{0});
  CHECK(fx.s(JobTime::RESTART) == 20 + 53);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 100 + 37);
  fx.require_conserved();
}

TEST_CASE("warm standbys: a restart after a failure initialises in the join time, the launch in full", "[unit][training_job]") {
  Fixture fx;
  fx.timing.restart_parts = true;
  fx.timing.reschedule = sim::to_ticks(5);
  fx.timing.init = sim::to_ticks(15);
  fx.timing.init_after_failure = sim::to_ticks(2);
  fx.timing.restart = fx.timing.reschedule + fx.timing.init;
  fx.timing.load = {sim::to_ticks(3)};
  fx.start();
  // Launch 0-20 s (5 + 15), failure at 150 s, detected at 160 s, restart 160-170 (5 + 2 + 3).
  fx.at(150, [&] { fx.job->on_failure(1, 0); });
  fx.at(160, [&] { fx.job->on_failure_detected(1); });
  fx.finish_at(200);
  const auto& parts = fx.job->restart_part_time();
  CHECK(parts[static_cast<std::size_t>(workload::RestartPart::INIT)] == sim::to_ticks(17) * fx.spec.gpus);
  CHECK(fx.s(JobTime::RESTART) == 30);
  fx.require_conserved();
}
