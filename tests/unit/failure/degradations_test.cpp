// Degradations: a job's clock is the slowest of its GPUs', its NVLink share the least of its domains'.
#include "models/failure/degradations.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::failure;

TEST_CASE("a job's clock is the least clock of the GPUs it holds", "[failure][degradations]") {
  Degradations d;
  const auto owner = [](int g) { return g < 8 ? 0 : (g < 16 ? 1 : -1); }; // job 0: 0-7, job 1: 8-15
  d.slow({2, 2}, 0.5);                                                    // GPUs 2, 3 of job 0
  d.slow({12, 1}, 0.25);                                                  // GPU 12 of job 1
  d.slow({20, 4}, 0.1);                                                   // GPUs nobody holds
  CHECK(d.job_clock(0, owner) == 0.5);
  CHECK(d.job_clock(1, owner) == 0.25);
  CHECK(d.job_clock(0, owner, 0.4) == 0.4); // a throttled job's clock from elsewhere is lower still
  CHECK(d.slow_gpus() == 7);
  CHECK(d.clear_slow({0, 4}));
  CHECK_FALSE(d.clear_slow({0, 4})); // nothing left to clear there
  CHECK(d.job_clock(0, owner) == 1.0);
  CHECK(d.job_clock(1, owner) == 0.25);
}

TEST_CASE("a degraded NVLink domain keeps the least share of its faults until restored",
          "[failure][degradations]") {
  Degradations d;
  const auto domain_job = [](int domain) { return domain == 3 ? 7 : -1; };
  d.degrade_nvlink(3, 0.75);
  d.degrade_nvlink(3, 0.5);
  d.degrade_nvlink(3, 0.9); // a milder second fault does not raise the share
  CHECK(d.job_nvlink(7, domain_job) == 0.5);
  CHECK(d.job_nvlink(6, domain_job) == 1.0);
  CHECK(d.restore_nvlink(3));
  CHECK_FALSE(d.restore_nvlink(3));
  CHECK(d.job_nvlink(7, domain_job) == 1.0);
}
