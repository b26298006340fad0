// PaceKeeper without a replica: one measured training job (job_fixture.hpp) whose conditions a fake site
// sets by hand; its slowdown, stalls and step record against the closed forms of job_pace.hpp.
#include "models/workload/pace_keeper.hpp"
#include "tests/unit/workload/job_fixture.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::workload;

namespace {

struct FakeSite : PaceKeeper::Site {
  Pace now;                 ///< the job's conditions, set by the test
  std::vector<Pace> lasts;  ///< the `last` state of each conditions() call
  Pace conditions(int, const JobPace&, const Pace& last) const override {
    const_cast<FakeSite*>(this)->lasts.push_back(last);
    return now;
  }
  bool at_full_size(int) const override { return true; }
  std::vector<int> gpus(int) const override { return {}; }
  bool storage_busy() const override { return false; }
  void fabric_resolved() override {}
};

/// A keeper of the fixture's job (step 1 s, shares c of scale-out and v of NVLink), stall `reroute_s`.
struct Paced {
  test::Fixture f;
  FakeSite site;
  std::unique_ptr<PaceKeeper> keeper;
  Paced(double c, double v, double reroute_s = 0) {
    f.spec.step_time_s = 1;
    f.spec.scaleout_comm_frac = c;
    f.spec.nvlink_comm_frac = v;
    keeper = std::make_unique<PaceKeeper>(site, f.q, 1, reroute_s, false);
    f.start([this](bool on) { keeper->training_changed(0, on); });
    keeper->add(0, *f.job, std::make_unique<JobPace>(f.spec, hardware::HardwareSpec{}, AlphaBetaCommModel::Params{},
                                                      nullptr, f.spec.step_time_s));
  }
};

} // namespace

TEST_CASE("the pace keeper sets a job's slowdown from its conditions, again only when they change",
          "[workload][pace]") {
  Paced p(0.2, 0.1);
  p.site.now = Pace{.clock = 0.5};
  p.keeper->update(false);
  // s = (1 - c - v)/f + c/B + v/n = 0.7/0.5 + 0.2 + 0.1
  CHECK(p.f.job->slowdown() == Approx(1.7).epsilon(1e-12));
  p.keeper->update(false);
  REQUIRE(p.site.lasts.size() == 2);
  CHECK(p.site.lasts[0] == Pace{});                // the healthy state it started from
  CHECK(p.site.lasts[1] == Pace{.clock = 0.5});    // the state its slowdown was set for
  p.site.now = Pace{.nvlink = 0.25};
  p.keeper->update(false);
  CHECK(p.f.job->slowdown() == Approx(0.7 + 0.2 + 0.1 / 0.25).epsilon(1e-12));
  p.site.now = Pace{};
  p.keeper->update(false);
  CHECK(p.f.job->slowdown() == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a job cut off from the fabric keeps its pace and records no step", "[workload][pace]") {
  Paced p(0.2, 0.1); // the fixture's job restarts for 50 s, then trains
  p.keeper->update(false); // placed: its step record starts healthy
  p.f.at(60, [&] {
    p.site.now = Pace{.bw = 0.5};
    p.keeper->update(false);
  });
  p.f.at(70, [&] {
    p.site.now = Pace{.bw = 0};
    p.keeper->update(false);
  });
  p.f.at(100, [&] {
    p.site.now = Pace{};
    p.keeper->update(false);
  });
  p.f.q.run_until(sim::to_ticks(80));
  CHECK(p.f.job->slowdown() == Approx(0.7 + 0.2 / 0.5 + 0.1).epsilon(1e-12)); // 1.2, not infinite
  p.f.finish_at(110);
  p.keeper->finish(sim::to_ticks(110));
  // Step records over its training [50, 110): 1 s over [50, 60), 1.2 s over [60, 100) (the cut-off at
  // 70 leaves it), 1 s after: exposed communication c/B + v/n per step, over the step.
  const StepRecord& step = p.keeper->step(0);
  CHECK(step.step_shared_s() == Approx((10 + 40 * 1.2 + 10) / 60).epsilon(1e-12));
  CHECK(step.step_alone_s() == Approx(step.step_shared_s()).epsilon(1e-15)); // no shared fabric
  CHECK(step.fabric_slowdown_frac() == Approx(0).margin(1e-15));
  CHECK(step.exposed_comm_frac() == Approx((10 * 0.3 + 40 * 0.5 + 10 * 0.3) / (10 + 40 * 1.2 + 10)).epsilon(1e-12));
}

TEST_CASE("a fabric fault that lowers a job's bandwidth stalls it for reroute_s; a rise or a mere change "
          "does not",
          "[workload][pace]") {
  double degraded_s[2] = {0, 0}; // with the stall, without
  for (const bool stall : {true, false}) {
    Paced p(0, 0, 5); // no scale-out share: the bandwidth changes nothing but the stall
    p.f.at(60, [&] { // training since 50 s (the fixture's restart)
      p.site.now = Pace{.bw = 0.5};
      p.keeper->update(stall);
    });
    p.f.at(90, [&] { // a change that is no fall: the clock, with the bandwidth where it was
      p.site.now = Pace{.bw = 0.5, .clock = 0.99};
      p.keeper->update(stall);
    });
    p.f.at(110, [&] {
      p.site.now = Pace{.bw = 1, .clock = 0.99};
      p.keeper->update(stall);
    });
    p.f.at(120, [&] {
      p.site.now = Pace{};
      p.keeper->update(false);
    });
    p.f.finish_at(130); // before the first checkpoint (at 150 s, 155 s with the stall)
    p.f.require_conserved();
    degraded_s[stall ? 0 : 1] = p.f.s(JobTime::DEGRADED);
  }
  // The stall's 5 s are degraded; the clock at 0.99 over [90, 120) degrades both runs alike.
  CHECK(degraded_s[1] > 0);
  CHECK(degraded_s[0] - degraded_s[1] == Approx(5).epsilon(1e-9));
}
