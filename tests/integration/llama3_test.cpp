// Meta's Llama 3 405B run (tests/data/llama3_interruptions.csv, "The Llama 3 Herd of Models" 2024, §3.3.4
// and Table 5): 419 unexpected and 47 planned interruptions in 54 days on 16,384 H100 GPUs, and "higher
// than 90% effective training time".
//
// The scenario's failure rates ARE the table's counts (count / 54 days / 2,048 servers) and its planned
// interval is 54 x 24 / 47 h, so the first test below only checks that dcsim injects, routes and counts
// the 18 modes consistently with its inputs: a consistency check, not a validation. The second compares
// with a published figure the inputs do not encode: the effective training time, which depends on the
// scenario's recovery costs (detection, restart, checkpoints), none of which Meta published.
#include "tests/support/simulate.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

using namespace dcsim;

TEST_CASE("llama3-16k-h100 consistency check: the scenario reproduces the Table 5 counts its rates were built from",
          "[scenario][llama3]") {
  const Scenario s = test::scenario_from_text(test::source_file("scenarios/llama3-16k-h100.json"),
                                              {"output.events=false", "output.timeseries_interval_s=0"});
  REQUIRE(s.duration_h == 54 * 24);
  const auto results = test::simulate(s);
  REQUIRE(results.size() == 10);
  for (const auto& r : results)
    test::require_conserved(r);

  const double interruptions = test::mean_metric(results, "llama3-405b", "interruptions");
  const double planned = test::mean_metric(results, "llama3-405b", "interruptions_planned");
  INFO(fmt::format("mean interruptions {:.1f}, planned {:.1f}", interruptions, planned));
  CHECK(interruptions == Approx(419).epsilon(0.10));
  CHECK(planned == Approx(47).margin(1.0));

  // Chi-square goodness of fit of the causes of all replicas' interruptions against the table's mix.
  std::ifstream in(std::string(DCSIM_SOURCE_DIR) + "/tests/data/llama3_interruptions.csv");
  std::string line;
  std::getline(in, line); // header
  std::vector<double> published;
  while (std::getline(in, line)) {
    published.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  }
  REQUIRE(published.size() == s.failures.modes.size()); // one mode per row, in table order
  std::vector<double> observed(published.size(), 0.0);
  double total = 0;
  for (const auto& r : results)
    for (std::size_t m = 0; m < published.size(); ++m) {
      observed[m] += static_cast<double>(r.jobs[0].interruptions_by_mode[m]);
      total += static_cast<double>(r.jobs[0].interruptions_by_mode[m]);
    }
  double chi2 = 0;
  for (std::size_t m = 0; m < published.size(); ++m) {
    const double expected = total * published[m] / 419.0;
    REQUIRE(expected >= 5); // the test's validity condition (smallest: 10 x ~410 x 2/419 = 19.6)
    chi2 += (observed[m] - expected) * (observed[m] - expected) / expected;
  }
  const double critical = boost::math::quantile(
      boost::math::complement(boost::math::chi_squared(static_cast<double>(published.size() - 1)), 0.01));
  INFO(fmt::format("chi-square {:.2f} with {} degrees of freedom; 1% critical value {:.2f}", chi2,
                   published.size() - 1, critical));
  CHECK(chi2 < critical);
}

TEST_CASE("llama3-16k-h100 against Meta's published >90% effective training time: a known gap (88.8%)",
          "[scenario][llama3]") {
  // Not circular: nothing in the scenario encodes the effective training time (ETTR = productive time ÷
  // elapsed time, the job's goodput_frac). It follows from the published failure counts and the
  // scenario's own, unpublished recovery costs: detection 3 or 10 min, restart 5 min, 20 s blocking
  // checkpoint writes at Daly's interval (653 s for the 3.09 h job MTBF), 10 min planned stops.
  // Hand estimate of the loss, per 1,296 h (Δ = share of the GPU-time):
  //   checkpoint writes  20 / (653 + 20) = 2.97% of the ~89% running time         2.6%
  //   rework             ~ half an interval per failure: 419 x 327 s / 1,296 h   2.9%
  //   detection          (356 hardware x 180 s + 63 software x 600 s) / 1,296 h  2.2%
  //   restart            (419 + 47 + 1) x 300 s / 1,296 h                        3.0%
  //   planned stops      47 x 600 s / 1,296 h                                    0.6%
  //   ETTR ≈ 1 − 11.3% ≈ 0.887 (simulated at e3c0e12: 0.8876, 95% CI half-width ~0.002 over 10 replicas).
  // Published: > 0.90. The gap is in the scenario's assumed recovery costs, not in the failure model:
  // meeting 90% needs ~16 h less loss over the 54 days (3-min instead of 5-min restarts would save
  // 467 x 120 s = 15.6 h). Tolerance: none on the published side (it is a bound); the
  // simulated mean's 95% CI must lie entirely on one side of 0.90.
  // This test asserts the gap as it stands, so that it cannot go unnoticed: when the scenario's recovery
  // costs are recalibrated to the published ETTR, it fails and must be turned into `CHECK(low > 0.90)`.
  const Scenario s = test::scenario_from_text(test::source_file("scenarios/llama3-16k-h100.json"),
                                              {"output.events=false", "output.timeseries_interval_s=0"});
  const auto results = test::simulate(s);
  REQUIRE(results.size() == 10);
  std::vector<double> ettr;
  for (const auto& r : results)
    for (const auto& [name, value] : ledger::job_metrics(r.jobs.at(0), r.peak_flops_per_gpu))
      if (name == "goodput_frac") ettr.push_back(value);
  REQUIRE(ettr.size() == 10);
  const double mean = std::accumulate(ettr.begin(), ettr.end(), 0.0) / 10;
  double ss = 0;
  for (double e : ettr)
    ss += (e - mean) * (e - mean);
  const double half_width = 2.262 * std::sqrt(ss / 9) / std::sqrt(10.0); // t(0.975, 9 d.o.f.) = 2.262
  INFO(fmt::format("effective training time {:.4f} ± {:.4f} (95% CI); published > 0.90", mean, half_width));
  CHECK(mean + half_width < 0.90); // KNOWN GAP: published > 0.90 (see above)
  // The hand estimate above, within 0.005: its rework term (half an interval per failure) and the
  // failures that strike during recovery are approximations of ~0.1% each.
  CHECK(mean == Approx(0.887).margin(0.005));
}
