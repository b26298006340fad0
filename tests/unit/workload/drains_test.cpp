// Drains without a replica: the fixture's training job (job_fixture.hpp: training from 50 s, a 10 s
// checkpoint write after each 100 s of compute) holding the drained GPUs, or nobody.
#include "models/workload/drains.hpp"
#include "tests/unit/workload/job_fixture.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace dcsim;
using namespace dcsim::workload;

namespace {

struct FakeSite : Drains::Site {
  std::vector<TrainingJob*> holders;
  std::vector<std::string> calls; ///< what the drain asked, in order, with the date (s)
  const sim::EventQueue* q = nullptr;
  std::string at() const { return "@" + std::to_string(static_cast<int>(sim::to_seconds(q->now()))); }
  void set_draining(hardware::GpuRange g, bool draining) override {
    calls.push_back((draining ? "draining " : "placeable ") + std::to_string(g.first) + "+" +
                    std::to_string(g.count) + at());
  }
  std::vector<TrainingJob*> training_holders(hardware::GpuRange) const override { return holders; }
  void drained() override { calls.push_back("drained" + at()); }
};

} // namespace

TEST_CASE("a drain takes the GPUs when the training job holding them stops at its next checkpoint, "
          "losing no work",
          "[workload][drains]") {
  test::Fixture fx;
  fx.start();
  FakeSite site;
  site.q = &fx.q;
  site.holders = {fx.job.get()};
  Drains drains(site, fx.q);
  double done_s = -1;
  fx.at(100, [&] {
    drains.drain({8, 72}, [&] {
      done_s = sim::to_seconds(fx.q.now());
      site.calls.push_back("done@" + std::to_string(static_cast<int>(done_s)));
      CHECK_FALSE(fx.job->training());
    });
  });
  fx.q.run_until(sim::to_ticks(300));
  // Training 50-150 s, its checkpoint written 150-160 s: stopped at 160 s, nothing to redo.
  CHECK(done_s == 160);
  CHECK(site.calls == std::vector<std::string>{"draining 8+72@100", "done@160", "placeable 8+72@160", "drained@160"});
  fx.job->finish();
  CHECK(fx.s(JobTime::REWORK) == 0);
  CHECK(fx.s(JobTime::PRODUCTIVE) == 100 + 90); // then it restarts (160-210 s) and trains to 300 s
}

TEST_CASE("a drain of GPUs no training job holds ends on a zero-delay event, never inside drain()",
          "[workload][drains]") {
  sim::EventQueue q;
  FakeSite site;
  site.q = &q;
  Drains drains(site, q);
  bool done = false;
  q.at(sim::to_ticks(5), [&] {
    drains.drain({0, 4}, [&] { done = true; });
    CHECK_FALSE(done);
    CHECK(site.calls == std::vector<std::string>{"draining 0+4@5"});
  });
  q.run_until(sim::to_ticks(10));
  CHECK(done);
  CHECK(site.calls == std::vector<std::string>{"draining 0+4@5", "placeable 0+4@5", "drained@5"});
}

TEST_CASE("a drain of GPUs two jobs hold ends when the later of them has stopped", "[workload][drains]") {
  test::Fixture a, b;
  b.timing.interval = sim::to_ticks(200); // its first checkpoint ends at 50 + 200 + 10 = 260 s
  // Each job runs on its own fixture's queue, the drain on a's; the queues are advanced in turn, b's
  // first to the drain's date.
  a.start();
  b.start();
  FakeSite site;
  site.q = &a.q;
  site.holders = {a.job.get(), b.job.get()};
  Drains drains(site, a.q);
  int done = 0;
  a.at(100, [&] { drains.drain({0, 16}, [&] { ++done; }); });
  b.q.run_until(sim::to_ticks(100));
  a.q.run_until(sim::to_ticks(200)); // a stopped at 160 s; b still trains
  CHECK(done == 0);
  b.q.run_until(sim::to_ticks(300)); // b stops at 260 s
  CHECK(done == 1);
}
