// Numeric axes and metric ranges of the report charts (tools/dcsim/svg_axis.hpp), and the charts that use
// them: a numeric sweep key drawn to scale, a log axis with its ticks at decades, intervals clipped to a
// fraction's [0, 1].
#include "models/ledger/metric_table.hpp"
#include "tests/support/svg_axes.hpp"
#include "tools/dcsim/svg_axis.hpp"
#include "tools/dcsim/svg_plots.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <string>

using namespace dcsim::tools::svg;

using dcsim::test::affine_in;
using dcsim::test::marks_of;
using dcsim::test::ticks_of;
constexpr auto identity = dcsim::test::linear_of;
constexpr auto log10_of = dcsim::test::log10_of;

TEST_CASE("axes: log only where numeric values span decades unevenly on a linear scale", "[unit][report]") {
  CHECK(prefers_log({600, 1800, 7200}));
  CHECK(prefers_log({1, 2, 4, 8, 16, 32}));
  CHECK_FALSE(prefers_log({100, 200, 300, 400, 500, 600, 700, 800, 900, 1000})); // evenly spaced
  CHECK_FALSE(prefers_log({0, 2, 4}));     // 0 has no logarithm
  CHECK_FALSE(prefers_log({120, 600, 1000})); // under a decade
  CHECK(numeric_values({"120", "1e3", "0.5"}) == std::vector<double>{120, 1000, 0.5});
  CHECK(numeric_values({"600", "auto"}).empty());
  CHECK(numeric_values({"12abc"}).empty());
}

TEST_CASE("axes: log ticks at decades (2 and 5 added under two decades), linear ticks round", "[unit][report]") {
  CHECK(log_ticks(1, 1000) == std::vector<double>{1, 10, 100, 1000});
  CHECK(log_ticks(15, 400) == std::vector<double>{20, 50, 100, 200});
  const auto a = log_axis(600, 7200);
  CHECK(a.fraction(a.lo) == Approx(0));
  CHECK(a.fraction(a.hi) == Approx(1));
  // Equal ratios are equal distances on a log axis.
  CHECK(a.fraction(6000) - a.fraction(600) == Approx(a.fraction(7000) - a.fraction(700)));
  const auto l = linear_axis(0.9, 0.99, 5, 0, 1);
  CHECK(l.hi <= 1); // a fraction's axis ends at 1 at most
  CHECK(l.ticks.front() >= l.lo);
}

TEST_CASE("metric ranges: fractions in [0, 1], magnitudes >= 0; every unit of the metric table decided",
          "[unit][report]") {
  CHECK(metric_range("goodput_frac").lo == 0);
  CHECK(metric_range("goodput_frac").hi == 1);
  CHECK(metric_range("goodput_frac").clip(1.0042) == 1);
  CHECK(metric_range("interruptions").clip(-0.3) == 0);
  CHECK(metric_range("interruptions").clip(1e9) == 1e9);
  CHECK(metric_range("some_future_frac").hi == 1); // undeclared: by its name
  CHECK(metric_range("some_future_metric").clip(-5) == -5);
  CHECK(std::isnan(metric_range("goodput_frac").clip(std::nan(""))));
  // A new unit must be classified here (a magnitude, or left unclipped on purpose by adding it below).
  for (const auto& m : dcsim::ledger::metric_table()) {
    INFO(m.name << " has unit " << m.unit);
    CHECK((m.unit == "fraction" || is_magnitude_unit(m.unit)));
  }
}

TEST_CASE("interval chart: a numeric key drawn to scale, log where it spans decades; intervals clipped to the range",
          "[unit][report]") {
  const double nan = std::nan("");
  IntervalChart c{"i", "t", "interval_s", "goodput_frac", {"600", "1800", "7200"},
                  {{"s", {0.95, 0.97, 0.998}, {0.94, 0.96, 0.99}, {0.96, 0.98, 1.004}}}};
  c.x_values = {600, 1800, 7200};
  c.y_min = 0, c.y_max = 1;
  SECTION("linear") {
    const std::string svg = interval_chart(c);
    CHECK(svg.find("class=\"chart x-linear\"") != std::string::npos);
    const auto xt = ticks_of(svg, "xtick");
    CHECK(affine_in(xt, identity));
    CHECK(affine_in(ticks_of(svg, "ytick"), identity));
    // The marks sit where the axis puts their values: cx of each mean on the same line as the ticks.
    std::vector<std::pair<double, double>> marks(xt.begin(), xt.end());
    for (const auto& m : marks_of(svg))
      marks.push_back(m);
    CHECK(marks.size() == xt.size() + 3);
    CHECK(affine_in(marks, identity));
    // 1.004 is drawn as 1: the bar is clipped, flagged, and no y tick passes 1.
    CHECK(svg.find("data-low=\"0.99\" data-high=\"1\" data-clipped=\"high\"") != std::string::npos);
    for (const auto& [v, pos] : ticks_of(svg, "ytick"))
      CHECK(v <= 1);
  }
  SECTION("log") {
    c.log_x = true;
    const std::string svg = interval_chart(c);
    CHECK(svg.find("class=\"chart x-log\"") != std::string::npos);
    const auto xt = ticks_of(svg, "xtick");
    CHECK(affine_in(xt, log10_of));
    CHECK(xt.front().first == 1000); // 600..7200 with room: the decade inside, plus 2 × and 5 × 10^k
    CHECK(svg.find("(log scale)") != std::string::npos);
  }
  SECTION("categorical") {
    c.x_values.clear();
    c.categories = {"auto", "600", "7200"};
    const std::string svg = interval_chart(c);
    CHECK(svg.find("class=\"chart x-categorical\"") != std::string::npos);
    CHECK(ticks_of(svg, "xtick").empty());
    (void)nan;
  }
}

TEST_CASE("pareto front over any two directions", "[unit][report]") {
  // (cost, interruptions), both lower-better: a (1, 5) and b (2, 1) trade off; c (3, 2) is beaten by b.
  const std::vector<ParetoPoint> p{{1, 5, "a", ""}, {2, 1, "b", ""}, {3, 2, "c", ""}};
  CHECK(pareto_front(p, false, false) == std::vector<std::size_t>{0, 1});
  // Both higher-better: c (3, 2) beats b; a has the most y.
  CHECK(pareto_front(p, true, true) == std::vector<std::size_t>{0, 2});
  ParetoChart chart{"p", "t", "x", "y", {{1, 1, "a", ""}, {10, 2, "b", ""}, {1000, 3, "c", ""}}};
  chart.log_x = true;
  const std::string svg = pareto_chart(chart);
  CHECK(svg.find("x-log y-linear") != std::string::npos);
  CHECK(affine_in(ticks_of(svg, "xtick"), log10_of));
  for (const auto& [v, pos] : ticks_of(svg, "xtick"))
    CHECK(std::log10(v) == Approx(std::round(std::log10(v)))); // three decades: decades only
}

TEST_CASE("compare panel: each metric on its own scale, its intervals clipped, the tolerance limit drawn",
          "[unit][report]") {
  ComparePanel p;
  p.id = "p", p.title = "pretrain: goodput_frac";
  p.baseline = 0.99, p.baseline_low = 0.985, p.baseline_high = 1.003;
  p.candidate = 0.97, p.candidate_low = 0.96, p.candidate_high = 0.98;
  p.limits = {0.99 - 0.00495};
  p.range_lo = 0, p.range_hi = 1;
  p.flagged = true;
  const std::string svg = compare_panel(p);
  CHECK(svg.find("data-low=\"0.985\" data-high=\"1\"") != std::string::npos);
  CHECK(svg.find("class=\"limit\" data-value=\"0.98505\"") != std::string::npos);
  const auto xt = ticks_of(svg, "xtick");
  CHECK(affine_in(xt, identity));
  for (const auto& [v, pos] : xt)
    CHECK((v >= 0.9 && v <= 1)); // its own scale (0.96 to 1 with round ends), not from 0
  CHECK(svg.find("fill=\"#d55e00\"") != std::string::npos); // the regression in the warning colour
}
