// Calibration against Meta's Llama 3 405B run (tests/data/llama3_interruptions.csv, "The Llama 3 Herd of
// Models" 2024, Table 5): 419 unexpected interruptions in 54 days on 16,384 H100 GPUs.
#include "tests/support/simulate.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

using namespace dcsim;

TEST_CASE("llama3-16k-h100: interruptions within 10% of 419 with the published cause mix", "[scenario][llama3]") {
  const Scenario s = test::scenario_from_text(test::source_file("scenarios/llama3-16k-h100.json"),
                                              {"output.events=false", "output.timeseries_interval_s=0"});
  REQUIRE(s.duration_h == 54 * 24);
  const auto results = test::simulate(s);
  REQUIRE(results.size() == 10);
  for (const auto& r : results)
    test::require_conserved(r);

  const double interruptions = test::mean_metric(results, "llama3-405b", "interruptions");
  const double planned = test::mean_metric(results, "llama3-405b", "interruptions_planned");
  const double goodput = test::mean_metric(results, "llama3-405b", "goodput_frac");
  INFO(fmt::format("mean interruptions {:.1f}, planned {:.1f}, goodput {:.4f}", interruptions, planned, goodput));
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
  // Goodput is reported with its confidence interval (Meta reports > 90% effective training time).
  CHECK(goodput > 0.80);
  CHECK(goodput < 0.97);
}
