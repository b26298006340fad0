// JobPace: a measured job's slowdown from the shares of its step; a model job's from its step model.
#include "models/workload/job_pace.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::workload;

TEST_CASE("a measured job stretches each share of its step by its own factor", "[workload][pace]") {
  JobSpec spec;
  spec.step_time_s = 10;
  spec.scaleout_comm_frac = 0.2;
  spec.nvlink_comm_frac = 0.1;
  JobPace pace(spec, hardware::HardwareSpec{}, AlphaBetaCommModel::Params{}, nullptr, spec.step_time_s);
  CHECK_FALSE(pace.on_fabric());
  CHECK(pace.slowdown(Pace{}) == Approx(1.0).epsilon(1e-15));
  // compute 0.7 at half clock, scale-out 0.2 at half bandwidth, NVLink 0.1 at a quarter:
  // 0.7/0.5 + 0.2/0.5 + 0.1/0.25 = 1.4 + 0.4 + 0.4 = 2.2
  CHECK(pace.slowdown(Pace{.bw = 0.5, .clock = 0.5, .nvlink = 0.25}) == Approx(2.2).epsilon(1e-15));
  CHECK(measured_slowdown(0.2, 0.1, Pace{.bw = 0.5}) == Approx(1.2).epsilon(1e-15));
}
