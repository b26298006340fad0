// The report charts' arithmetic (tools/dcsim/svg_plots.hpp): the Pareto front, interval bars, heatmap cells.
#include "tools/dcsim/svg_plots.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace dcsim::tools::svg;

namespace {

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size()))
    ++n;
  return n;
}

} // namespace

TEST_CASE("pareto front: the points no other beats on both fewer x and more y", "[unit][report]") {
  // (GPUs, goodput): b beats a (same GPUs, more goodput); c costs more but gives more; d is beaten by c
  // (more GPUs, less goodput); e ties c exactly (neither dominates the other); f has no goodput.
  const std::vector<ParetoPoint> points{{100, 0.90, "a", ""}, {100, 0.95, "b", ""},
                                        {200, 0.97, "c", ""}, {300, 0.96, "d", ""},
                                        {200, 0.97, "e", ""}, {50, std::nan(""), "f", ""}};
  CHECK(pareto_front(points) == std::vector<std::size_t>{1, 2, 4});
  const std::string svg = pareto_chart({"p", "t", "GPUs", "goodput", points});
  CHECK(count(svg, "class=\"front-point\"") == 3);
  CHECK(count(svg, "class=\"dominated\"") == 2); // f is not drawn
  CHECK(count(svg, "class=\"front-label\"") == 3);
}

TEST_CASE("interval chart: one bar per finite interval, one mark per finite mean", "[unit][report]") {
  const double nan = std::nan("");
  IntervalChart c{
      "i", "t", "x", "y", {"a", "b", "c"}, {{"s", {1, 2, nan}, {0.5, nan, nan}, {1.5, nan, nan}}}};
  const std::string svg = interval_chart(c);
  CHECK(count(svg, "class=\"errorbar\"") == 1);
  CHECK(count(svg, "class=\"mean\"") == 2);
  CHECK(svg.find("data-low=\"0.5\" data-high=\"1.5\"") != std::string::npos);
}

TEST_CASE("heatmap: one cell per value, the lowest light and the highest dark", "[unit][report]") {
  Heatmap h{
      "h", "t", "r", "c", {"r0", "r1"}, {"c0", "c1"}, {{0, 1}, {2, std::nan("")}}, {{"0", "1"}, {"2", "–"}}};
  const std::string svg = heatmap(h);
  CHECK(count(svg, "class=\"cell\"") == 4);
  CHECK(svg.find("data-value=\"0\" x=\"") != std::string::npos);
  CHECK(svg.find("fill=\"#fde725\"") != std::string::npos); // the scale's light end, for 0
  CHECK(svg.find("fill=\"#440154\"") != std::string::npos); // its dark end, for 2
  CHECK(svg.find("fill=\"#dddddd\"") != std::string::npos); // no value
}
