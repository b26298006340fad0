#include "tools/dcsim/compare_junit.hpp"

#include "tools/dcsim/compare_report.hpp"
#include "tools/dcsim/svg_chart.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dcsim::tools {

namespace {

using svg::escape;

std::string stats_text(const MetricStats& s) {
  if (!s.present) return "absent";
  return fmt::format("{:.6g} [{:.6g}, {:.6g}] over {} replicas", s.mean, s.ci95_low, s.ci95_high, s.replicas);
}

std::string details(const Comparison& c, const MetricComparison& r) {
  return fmt::format("baseline  {}\ncandidate {}\ndiff {:+.6g} ({:+.2f}%), 95% CI [{:.6g}, {:.6g}]\n"
                     "{} test: p {:.4g}, Holm-adjusted {:.4g}; tolerance {}\nverdict: {}\n",
                     stats_text(r.baseline), stats_text(r.candidate), r.diff, r.diff_frac * 100, r.diff_ci95_low,
                     r.diff_ci95_high, r.paired ? "paired t" : "Welch t", r.p_value, r.p_adjusted,
                     tolerance_text(c, r), r.verdict);
}

std::string testcase(const Comparison& c, const MetricComparison& r, int& failures, int& skipped) {
  std::string out = fmt::format("    <testcase classname=\"dcsim.compare.{}\" name=\"{}\" time=\"0\">", escape(r.job),
                                escape(r.metric));
  if (r.regression) {
    ++failures;
    out += fmt::format("\n      <failure type=\"regression\" message=\"{}: {} moved {:+.2f}% (tolerance {}), adjusted p "
                       "{:.4g}\">{}</failure>\n    ",
                       escape(r.verdict), escape(r.metric), r.diff_frac * 100, escape(tolerance_text(c, r)),
                       r.p_adjusted, escape(details(c, r)));
  } else if (!r.tested) {
    ++skipped;
    out += fmt::format("\n      <skipped message=\"not tested: {}\"/>\n    ", escape(r.verdict));
  } else {
    out += fmt::format("\n      <system-out>{}</system-out>\n    ", escape(details(c, r)));
  }
  return out + "</testcase>\n";
}

} // namespace

std::string comparison_junit(const Comparison& c) {
  std::string cases;
  int tests = 0, failures = 0, skipped = 0;
  for (const auto& r : c.rows)
    if (can_fail(c, r)) cases += testcase(c, r, failures, skipped), ++tests;
  std::string gates;
  for (const auto& g : c.gates)
    gates += fmt::format("{}{}={}", gates.empty() ? "" : ",", g.metric,
                         g.relative ? fmt::format("{:g}%", g.tolerance * 100) : fmt::format("{:g}", g.tolerance));
  const std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"", tests, failures, skipped);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"dcsim compare\" {}>\n  <testsuite name=\"dcsim compare\" {} time=\"0\">\n",
                     counts, counts);
  out += "    <properties>\n";
  const std::pair<const char*, std::string> properties[] = {
      {"baseline", c.baseline_dir},
      {"candidate", c.candidate_dir},
      {"test", c.paired ? "paired" : "welch"},
      {"alpha", fmt::format("{:g}", COMPARE_ALPHA)},
      {gates.empty() ? "tolerance_frac" : "gates", gates.empty() ? fmt::format("{:g}", c.tolerance_frac) : gates}};
  for (const auto& [name, value] : properties)
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, escape(value));
  out += "    </properties>\n" + cases;
  return out + "  </testsuite>\n</testsuites>\n";
}

} // namespace dcsim::tools
