#include "tools/dcsim/compare_report.hpp"

#include "tools/dcsim/report.hpp"
#include "tools/dcsim/svg_chart.hpp"
#include "tools/dcsim/svg_plots.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dcsim::tools {

using svg::escape;

namespace {

std::string stats_cell(const MetricStats& s) {
  if (!s.present) return "<td>–</td>";
  if (std::isnan(s.ci95_low) || s.ci95_low == s.ci95_high)
    return fmt::format("<td>{}</td>", report_number(s.mean));
  return fmt::format("<td>{} <span class=\"ci\">[{}, {}]</span></td>", report_number(s.mean),
                     report_number(s.ci95_low), report_number(s.ci95_high));
}

std::string p_text(double p) {
  if (std::isnan(p)) return "–";
  return p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p);
}

/// The tolerance a row is held to, as compare applies it.
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
        escape(r.job), escape(r.metric), stats_cell(r.baseline), stats_cell(r.candidate), diff,
        std::isnan(r.diff_frac) ? "–" : fmt::format("{:+.2f}%", r.diff_frac * 100), p_text(r.p_value),
        p_text(r.p_adjusted), tolerance_text(c, r), escape(r.verdict), gate);
  }
  return out + "</tbody></table></section>\n";
}

std::string diff_section(const Comparison& c) {
  std::vector<svg::ForestRow> rows;
  for (const auto& r : c.rows) {
    if (!r.tested || !r.baseline.present || r.baseline.mean == 0 || std::isnan(r.diff_frac)) continue;
    const double scale = 100 / std::fabs(r.baseline.mean);
    rows.push_back({r.job + ": " + r.metric, r.diff_frac * 100, r.diff_ci95_low * scale,
                    r.diff_ci95_high * scale, r.regression});
  }
  std::string out =
      "<section id=\"compare-diff\"><h2>Differences with their 95% intervals</h2>\n<p>Candidate − "
      "baseline as a share of the baseline mean; the bar is the 95% interval of the difference "
      "(paired over shared seeds, else Welch). Metrics that failed are drawn in orange.</p>\n";
  if (rows.empty())
    return out + "<p class=\"note\">No metric could be tested (fewer than 2 replicas).</p></section>\n";
  return out +
         svg::forest_chart("compare-diff-chart", "difference (% of the baseline mean)",
                           "% of the baseline mean", rows) +
         "</section>\n";
}

} // namespace

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
  html += diff_section(c) + table_section(c);
  return html + "<footer><p>Generated by dcsim compare --report.</p></footer>\n</body></html>\n";
}

} // namespace dcsim::tools
