#include "tools/dcsim/compare_report.hpp"

#include "tools/dcsim/report.hpp"
#include "tools/dcsim/svg_axis.hpp"
#include "tools/dcsim/svg_chart.hpp"
#include "tools/dcsim/svg_plots.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace dcsim::tools {

using svg::escape;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// A side's mean and interval, the interval clipped to the metric's range (svg::metric_range).
std::string stats_cell(const MetricStats& s, const std::string& metric) {
  if (!s.present) return "<td>–</td>";
  if (std::isnan(s.ci95_low) || s.ci95_low == s.ci95_high)
    return fmt::format("<td>{}</td>", report_number(s.mean));
  const auto range = svg::metric_range(metric);
  return fmt::format("<td>{} <span class=\"ci\">[{}, {}]</span></td>", report_number(s.mean),
                     report_number(range.clip(s.ci95_low)), report_number(range.clip(s.ci95_high)));
}

std::string p_text(double p) {
  if (std::isnan(p)) return "–";
  return p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p);
}

std::string table_section(const Comparison& c) {
  std::string out =
      "<section id=\"compare-table\"><h2>Every metric</h2>\n<table class=\"summary-table\"><thead><tr>"
      "<th>job</th><th>metric</th><th>baseline</th><th>candidate</th><th>difference [95% CI]</th>"
      "<th>change</th><th>p-value</th><th>Holm p</th><th>tolerance</th><th>verdict</th><th>gate</th>"
      "</tr></thead><tbody>\n";
  for (const auto& r : c.rows) {
    const std::string diff =
        std::isnan(r.diff_ci95_low)
            ? report_number(r.diff)
            : fmt::format("{} <span class=\"ci\">[{}, {}]</span>", report_number(r.diff),
                          report_number(r.diff_ci95_low), report_number(r.diff_ci95_high));
    const std::string gate = !can_fail(c, r) ? "–" : r.regression ? "<b class=\"fail\">FAIL</b>" : "pass";
    out += fmt::format(
        "<tr><td>{}</td><td class=\"metric\">{}</td>{}{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        escape(r.job), escape(r.metric), stats_cell(r.baseline, r.metric), stats_cell(r.candidate, r.metric), diff,
        std::isnan(r.diff_frac) ? "–" : fmt::format("{:+.2f}%", r.diff_frac * 100), p_text(r.p_value),
        p_text(r.p_adjusted), tolerance_text(c, r), escape(r.verdict), gate);
  }
  return out + "</tbody></table></section>\n";
}

/// The absolute tolerance a row is held to (NaN when it cannot fail).
double tolerance_of(const Comparison& c, const MetricComparison& r) {
  if (!can_fail(c, r) || !r.baseline.present) return NaN;
  for (const auto& g : c.gates)
    if (g.metric == r.metric) return g.relative ? g.tolerance * std::fabs(r.baseline.mean) : g.tolerance;
  return c.tolerance_frac * std::fabs(r.baseline.mean);
}

svg::ComparePanel panel_of(const Comparison& c, const MetricComparison& r) {
  svg::ComparePanel p;
  p.id = "compare-panel-" + report_html_id(r.job) + "-" + report_html_id(r.metric);
  p.title = r.job + ": " + r.metric;
  const bool has_direction = r.better && *r.better != ledger::Better::NONE;
  p.note = fmt::format("{}{}{}{}", r.verdict,
                       std::isnan(r.diff_frac) ? "" : fmt::format(" ({:+.2f}%)", r.diff_frac * 100),
                       has_direction ? fmt::format(" · {} better", *r.better == ledger::Better::HIGHER ? "↑" : "↓") : "",
                       can_fail(c, r) ? " · tol " + tolerance_text(c, r) : "");
  const auto side = [](const MetricStats& s, double& mean, double& low, double& high) {
    mean = s.present ? s.mean : NaN, low = s.present ? s.ci95_low : NaN, high = s.present ? s.ci95_high : NaN;
  };
  side(r.baseline, p.baseline, p.baseline_low, p.baseline_high);
  side(r.candidate, p.candidate, p.candidate_low, p.candidate_high);
  if (const double tol = tolerance_of(c, r); std::isfinite(tol)) {
    const bool lower_worse = r.better && *r.better == ledger::Better::HIGHER;
    const bool higher_worse = r.better && *r.better == ledger::Better::LOWER;
    if (!higher_worse) p.limits.push_back(r.baseline.mean - tol);
    if (!lower_worse) p.limits.push_back(r.baseline.mean + tol);
  }
  const auto range = svg::metric_range(r.metric);
  p.range_lo = range.lo, p.range_hi = range.hi;
  p.flagged = r.regression;
  return p;
}

/// One panel per metric, each on its own scale: the gated metrics first (every metric that can fail
/// when there are no gates), regressions first among them.
std::string panels_section(const Comparison& c) {
  std::vector<const MetricComparison*> order;
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& r : c.rows) {
      const int rank = r.regression ? 0 : can_fail(c, r) ? 1 : 2;
      const bool drawable = (r.baseline.present && std::isfinite(r.baseline.mean)) ||
                            (r.candidate.present && std::isfinite(r.candidate.mean));
      if (rank == pass && drawable) order.push_back(&r);
    }
  std::string out =
      "<section id=\"compare-panels\"><h2>Each metric on its own scale</h2>\n<p>Baseline and candidate means "
      "with their 95% intervals (clipped to the values the metric can take: a fraction to [0, 1]); dashed: "
      "the tolerance limits of a metric that can fail. Regressions first, in orange, then the metrics that "
      "can fail, then the others.</p>\n";
  if (order.empty()) return out + "<p class=\"note\">No metric to draw.</p></section>\n";
  out += "<div class=\"charts\">\n";
  for (const auto* r : order)
    out += svg::compare_panel(panel_of(c, *r));
  return out + "</div></section>\n";
}

} // namespace

std::string tolerance_text(const Comparison& c, const MetricComparison& r) {
  for (const auto& g : c.gates)
    if (g.metric == r.metric)
      return g.relative ? fmt::format("{:g}%", g.tolerance * 100) : fmt::format("{:g}", g.tolerance);
  return c.gates.empty() ? fmt::format("{:g}%", c.tolerance_frac * 100) : "not gated";
}

bool can_fail(const Comparison& c, const MetricComparison& r) {
  if (!c.gates.empty()) {
    for (const auto& g : c.gates)
      if (g.metric == r.metric) return true;
    return false;
  }
  return r.better && *r.better != ledger::Better::NONE;
}

std::string compare_report_html(const Comparison& c) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += fmt::format("<title>dcsim compare: {} vs {}</title>\n<style>{}</style></head><body>\n",
                      escape(c.baseline_dir), escape(c.candidate_dir), report_css());
  html += "<h1 id=\"title\">dcsim compare</h1>\n";
  std::string gates;
  for (const auto& g : c.gates)
    gates +=
        fmt::format("{}{}={}", gates.empty() ? "" : ", ", g.metric,
                    g.relative ? fmt::format("{:g}%", g.tolerance * 100) : fmt::format("{:g}", g.tolerance));
  html += fmt::format(
      "<section id=\"compare-facts\"><p>Baseline <code>{}</code>, candidate <code>{}</code>. Test: {}. {}. "
      "p-values "
      "are two-sided; Holm's adjustment over the {} metrics that can fail, α = {:g}.</p>\n<p "
      "class=\"verdict\">{}</p>"
      "</section>\n",
      escape(c.baseline_dir), escape(c.candidate_dir),
      c.paired ? "paired t-test (the runs share their seed: replica i of each drew the same random numbers)"
               : "Welch's t-test (independent runs)" +
                     (c.pairing_note.empty() ? std::string() : " — " + escape(c.pairing_note)),
      gates.empty() ? fmt::format("Tolerance {:g}% of the baseline mean for every metric with a direction",
                                  c.tolerance_frac * 100)
                    : "Gates: " + escape(gates),
      c.family, COMPARE_ALPHA,
      c.regressions > 0 ? fmt::format("<b class=\"fail\">FAIL</b>: {} regressions", c.regressions)
                        : std::string("pass: no regression"));
  html += panels_section(c) + table_section(c);
  return html + "<footer><p>Generated by dcsim compare --report.</p></footer>\n</body></html>\n";
}

} // namespace dcsim::tools
