#include "tools/dcsim/report_fabric.hpp"

#include "sim/compressed_file.hpp"
#include "sim/csv_reader.hpp"
#include "tools/dcsim/svg_chart.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace dcsim::tools {

namespace {

const char* INTRO =
    "<section id=\"fabric-utilisation\"><h2>Fabric link utilisation</h2>\n"
    "<p>Each link's load is every job's flow rate on it while its communication phase runs times the phase's "
    "share of the step, over the link's capacity (fabric_utilisation.csv, fabric_utilisation_series.csv). "
    "Per tier: the median, 99th percentile and most loaded link over time (first replica; each value holds "
    "until the next change), then the figures weighted by time over the replica, averaged over "
    "replicas.</p>\n";

/// Per tier (in file order): the first replica's series.
struct TierSeries {
  std::vector<double> t, p50, p99, max;
};

std::string series_charts(const sim::CsvDocument& doc, double end_s) {
  const std::string label = "fabric_utilisation_series.csv";
  const auto replica = doc.require_column("replica", label), time = doc.require_column("time_s", label),
             tier = doc.require_column("tier", label), p50 = doc.require_column("util_p50_frac", label),
             p99 = doc.require_column("util_p99_frac", label), max = doc.require_column("util_max_frac", label);
  if (doc.rows.empty()) return {};
  const std::string first = doc.rows.front()[replica];
  std::vector<std::string> order;
  std::map<std::string, TierSeries> tiers;
  for (const auto& row : doc.rows) {
    if (row[replica] != first) continue;
    if (!tiers.count(row[tier])) order.push_back(row[tier]);
    TierSeries& s = tiers[row[tier]];
    s.t.push_back(sim::csv_number(row[time]) / 3600);
    s.p50.push_back(sim::csv_number(row[p50]));
    s.p99.push_back(sim::csv_number(row[p99]));
    s.max.push_back(sim::csv_number(row[max]));
  }
  std::string charts;
  for (const auto& name : order) {
    TierSeries s = tiers[name];
    if (end_s > 0 && s.t.back() < end_s / 3600) { // the last value holds to the end
      s.t.push_back(end_s / 3600);
      s.p50.push_back(s.p50.back()), s.p99.push_back(s.p99.back()), s.max.push_back(s.max.back());
    }
    svg::LineChart chart;
    chart.id = "fabric-utilisation-" + name;
    chart.title = fmt::format("{} links (replica {})", name, first);
    chart.x_label = "time (h)";
    chart.y_label = "utilisation";
    chart.step = true;
    chart.series = {{"max", s.t, s.max, {}, {}}, {"p99", s.t, s.p99, {}, {}}, {"p50", s.t, s.p50, {}, {}}};
    charts += svg::line_chart(chart);
  }
  return charts;
}

std::string summary_table(const sim::CsvDocument& doc) {
  const std::string label = "fabric_utilisation.csv";
  const auto replica = doc.require_column("replica", label), tier = doc.require_column("tier", label);
  const std::vector<std::string> cols{"util_p50_frac", "util_p99_frac", "util_max_frac", "util_mean_frac"};
  std::vector<std::size_t> idx;
  for (const auto& c : cols)
    idx.push_back(doc.require_column(c, label));
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> sum;
  std::map<std::string, int> n;
  for (const auto& row : doc.rows) {
    (void)replica;
    if (!sum.count(row[tier])) order.push_back(row[tier]), sum[row[tier]].assign(cols.size(), 0.0);
    for (std::size_t c = 0; c < cols.size(); ++c)
      sum[row[tier]][c] += sim::csv_number(row[idx[c]]);
    ++n[row[tier]];
  }
  std::string out = "<table id=\"fabric-utilisation-table\"><thead><tr><th>tier</th><th>p50</th><th>p99</th><th>max"
                    "</th><th>mean</th></tr></thead><tbody>\n";
  for (const auto& t : order) {
    out += "<tr><td>" + svg::escape(t) + "</td>";
    for (double v : sum[t])
      out += fmt::format("<td>{:.4f}</td>", v / n[t]);
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

} // namespace

std::string fabric_utilisation_section(const std::filesystem::path& dir, double end_s) {
  const auto series_path = dir / "fabric_utilisation_series.csv", summary_path = dir / "fabric_utilisation.csv";
  if (!sim::any_variant(series_path) || !sim::any_variant(summary_path)) return {};
  std::string out = INTRO;
  try {
    const sim::CsvDocument summary = sim::read_csv_file(summary_path);
    const sim::CsvDocument series = sim::read_csv_file(series_path);
    return out + "<div class=\"charts\">\n" + series_charts(series, end_s) + "</div>\n" + summary_table(summary) +
           "</section>\n";
  } catch (const std::exception& e) {
    return out + "<p class=\"note\">" + svg::escape(e.what()) + "</p></section>\n";
  }
}

} // namespace dcsim::tools
