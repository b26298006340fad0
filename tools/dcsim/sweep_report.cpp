#include "tools/dcsim/sweep_report.hpp"

#include "sim/compressed_file.hpp"

#include "models/ledger/metric_table.hpp"
#include "sim/csv_reader.hpp"
#include "tools/dcsim/report.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/svg_axis.hpp"
#include "tools/dcsim/svg_chart.hpp"
#include "tools/dcsim/svg_plots.hpp"
#include "tools/dcsim/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

namespace dcsim::tools {

using svg::escape;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

struct Stat {
  double mean = NaN, low = NaN, high = NaN;
};

/// sweep.csv, indexed: the varied keys (the columns between point and scenario), each point's values.
struct SweepData {
  std::string scenario;
  std::vector<std::string> keys;
  std::vector<int> points;                          ///< in file order
  std::map<int, std::vector<std::string>> values;   ///< point -> one value per key
  std::vector<std::vector<std::string>> key_values; ///< per key, its values in order of appearance
  std::vector<std::string> entities;                ///< jobs then cluster, in order of appearance
  std::map<std::tuple<int, std::string, std::string>, Stat> stats; ///< (point, entity, metric)
  bool has(const std::string& entity, const std::string& metric) const {
    for (int p : points)
      if (stats.count({p, entity, metric})) return true;
    return false;
  }
  Stat at(int point, const std::string& entity, const std::string& metric) const {
    const auto it = stats.find({point, entity, metric});
    return it == stats.end() ? Stat{} : it->second;
  }
};

double field(const std::vector<std::string>& row, std::size_t col) {
  try {
    return sim::csv_number(row[col]);
  } catch (const std::exception&) {
    return NaN;
  }
}

template <class T> void add_unique(std::vector<T>& list, const T& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

SweepData read_sweep(const std::filesystem::path& dir) {
  const auto doc = sim::read_csv_file(dir / "sweep.csv");
  const std::string label = "sweep.csv";
  const auto point = doc.require_column("point", label), scenario = doc.require_column("scenario", label),
             job = doc.require_column("job", label), metric = doc.require_column("metric", label),
             mean = doc.require_column("mean", label), low = doc.require_column("ci95_low", label),
             high = doc.require_column("ci95_high", label);
  if (scenario <= point)
    throw std::runtime_error("sweep.csv: the varied keys' columns must come between point and scenario");
  SweepData d;
  for (std::size_t c = point + 1; c < scenario; ++c)
    d.keys.push_back(doc.header[c]);
  d.key_values.resize(d.keys.size());
  for (const auto& row : doc.rows) {
    const double p_number = field(row, point);
    if (std::isnan(p_number))
      throw std::runtime_error(fmt::format("sweep.csv: point {} is not a number", row[point]));
    const int p = static_cast<int>(p_number);
    if (!d.values.count(p)) {
      d.points.push_back(p);
      auto& v = d.values[p];
      for (std::size_t k = 0; k < d.keys.size(); ++k) {
        v.push_back(row[point + 1 + k]);
        add_unique(d.key_values[k], row[point + 1 + k]);
      }
    }
    if (d.scenario.empty()) d.scenario = row[scenario];
    if (row[job] != "cluster") add_unique(d.entities, row[job]);
    d.stats[{p, row[job], row[metric]}] = {field(row, mean), field(row, low), field(row, high)};
  }
  d.entities.push_back("cluster");
  return d;
}

/// The entities a metric is drawn for: the jobs that have it, else the cluster.
std::vector<std::string> entities_of(const SweepData& d, const std::string& metric) {
  std::vector<std::string> out;
  for (const auto& e : d.entities)
    if (e != "cluster" && d.has(e, metric)) out.push_back(e);
  if (out.empty() && d.has("cluster", metric)) out.push_back("cluster");
  return out;
}

std::string mean_text(const Stat& s) {
  if (std::isnan(s.mean)) return "–";
  if (std::isnan(s.low) || std::isnan(s.high) || s.low == s.high) return report_number(s.mean);
  return fmt::format("{} ±{}", report_number(s.mean), report_number((s.high - s.low) / 2));
}

/// Whether key `o`'s value is set by key `k`'s at every point (keys zipped together, --zip): such a key
/// makes no series of its own in k's charts.
bool follows(const SweepData& d, std::size_t o, std::size_t k) {
  std::map<std::string, std::string> seen;
  for (int p : d.points) {
    const auto [it, fresh] = seen.try_emplace(d.values.at(p)[k], d.values.at(p)[o]);
    if (!fresh && it->second != d.values.at(p)[o]) return false;
  }
  return true;
}

/// One chart: `metric` against key `k`; one series per entity and combination of the other keys' values.
std::string metric_vs_key(const SweepData& d, const std::string& metric, std::size_t k) {
  svg::IntervalChart chart;
  chart.id = "sweep-" + report_html_id(metric) + "-vs-" + report_html_id(d.keys[k]);
  chart.title = fmt::format("{} against {} (95% CI)", metric, d.keys[k]);
  chart.x_label = d.keys[k];
  chart.y_label = metric;
  chart.categories = d.key_values[k];
  // A key whose values are all numbers: sorted, on a numeric axis to scale (log where they span decades).
  if (auto x = svg::numeric_values(chart.categories); x.size() > 1) {
    std::vector<std::size_t> order(x.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return x[a] < x[b]; });
    std::vector<std::string> sorted;
    for (auto i : order)
      sorted.push_back(chart.categories[i]), chart.x_values.push_back(x[i]);
    chart.categories = sorted;
    chart.log_x = svg::prefers_log(chart.x_values);
  }
  const auto range = svg::metric_range(metric);
  chart.y_min = range.lo, chart.y_max = range.hi;
  const auto entities = entities_of(d, metric);
  std::vector<std::string> combos; // the other keys' values, in order of appearance
  auto combo_of = [&](int p) {
    std::string text;
    for (std::size_t o = 0; o < d.keys.size(); ++o)
      if (o != k && !follows(d, o, k))
        text += fmt::format("{}{}={}", text.empty() ? "" : ", ", d.keys[o], d.values.at(p)[o]);
    return text;
  };
  for (int p : d.points)
    add_unique(combos, combo_of(p));
  for (const auto& e : entities)
    for (const auto& combo : combos) {
      svg::IntervalSeries s;
      s.name = entities.size() > 1 ? (combo.empty() ? e : e + ", " + combo) : combo;
      for (const auto& category : chart.categories) {
        Stat st;
        for (int p : d.points)
          if (d.values.at(p)[k] == category && combo_of(p) == combo) st = d.at(p, e, metric);
        s.y.push_back(st.mean), s.low.push_back(st.low), s.high.push_back(st.high);
      }
      chart.series.push_back(std::move(s));
    }
  return svg::interval_chart(chart);
}

std::string metrics_section(const SweepData& d, const std::vector<std::string>& metrics) {
  std::string out = "<section id=\"sweep-metrics\"><h2>Metrics against the varied keys</h2>\n<p>Each point's "
                    "mean over its replicas with its 95% confidence interval (Student t) as an error bar; "
                    "one line per value of the other keys.</p>\n<div class=\"charts\">\n";
  for (const auto& m : metrics)
    for (std::size_t k = 0; k < d.keys.size(); ++k)
      out += metric_vs_key(d, m, k);
  return out + "</div></section>\n";
}

std::string heatmap_section(const SweepData& d, const std::vector<std::string>& metrics) {
  if (d.keys.size() != 2) return "";
  std::string out =
      "<section id=\"sweep-heatmap\"><h2>Two keys at once</h2>\n<p>Colour: the mean (light low, "
      "dark high); text: mean ± half the 95% interval.</p>\n<div class=\"charts\">\n";
  for (const auto& m : metrics)
    for (const auto& e : entities_of(d, m)) {
      svg::Heatmap h;
      h.id = "heatmap-" + report_html_id(m) + "-" + report_html_id(e);
      h.title = fmt::format("{}: {}", e, m);
      h.row_label = d.keys[0];
      h.col_label = d.keys[1];
      h.rows = d.key_values[0];
      h.cols = d.key_values[1];
      h.values.assign(h.rows.size(), std::vector<double>(h.cols.size(), NaN));
      h.texts.assign(h.rows.size(), std::vector<std::string>(h.cols.size(), "–"));
      for (int p : d.points) {
        const auto& v = d.values.at(p);
        const auto i = std::find(h.rows.begin(), h.rows.end(), v[0]) - h.rows.begin();
        const auto j = std::find(h.cols.begin(), h.cols.end(), v[1]) - h.cols.begin();
        const Stat s = d.at(p, e, m);
        h.values[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = s.mean;
        h.texts[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = mean_text(s);
      }
      out += svg::heatmap(h);
    }
  return out + "</div></section>\n";
}

/// Each point's folder under points/ (point-NNN, any width).
std::map<int, std::filesystem::path> point_folders(const std::filesystem::path& dir) {
  std::map<int, std::filesystem::path> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "points", ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || !name.starts_with("point-") || name.size() == 6) continue;
    if (std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      out[std::stoi(name.substr(6))] = entry.path();
  }
  return out;
}

/// The cluster's GPUs of each point (its scenario.json), NaN when it cannot be read.
std::map<int, double> point_gpus(const std::filesystem::path& dir, const SweepData& d) {
  std::map<int, double> out;
  const auto folders = point_folders(dir);
  for (int p : d.points) {
    out[p] = NaN;
    const auto it = folders.find(p);
    if (it == folders.end() || !std::filesystem::exists(it->second / SCENARIO_DOCUMENT_FILE)) continue;
    const LoadedScenario loaded = load_scenario((it->second / SCENARIO_DOCUMENT_FILE).string());
    if (loaded.scenario)
      out[p] = static_cast<double>(loaded.scenario->cluster.racks) *
               loaded.scenario->hardware.rack.gpus_per_rack();
  }
  return out;
}

/// One axis of a Pareto chart: a metric of sweep.csv (the cluster's row when it has one, else the first
/// job's; "JOB:METRIC" names the row) or "gpus" (the cluster's GPUs, from each point's scenario.json).
struct ParetoAxis {
  std::string label;
  std::map<int, double> values;
  bool higher_better = false;
};

ParetoAxis pareto_axis(const std::filesystem::path& dir, const SweepData& d, const std::string& name) {
  ParetoAxis a;
  a.label = name;
  if (name == "gpus") {
    a.values = point_gpus(dir, d);
    return a;
  }
  const auto colon = name.find(':');
  const std::string metric = colon == std::string::npos ? name : name.substr(colon + 1);
  std::string entity = colon == std::string::npos ? "" : name.substr(0, colon);
  if (entity.empty()) entity = d.has("cluster", metric) ? "cluster" : entities_of(d, metric).empty() ? "" : entities_of(d, metric).front();
  if (entity.empty() || !d.has(entity, metric))
    throw std::runtime_error(fmt::format("--pareto: no metric {} in sweep.csv", name));
  const auto better = ledger::metric_direction(metric);
  if (!better || *better == ledger::Better::NONE)
    throw std::runtime_error(fmt::format("--pareto: {} has no better direction (higher or lower) in the metric table: "
                                         "a Pareto front needs one (dcsim describe metrics)",
                                         metric));
  a.higher_better = *better == ledger::Better::HIGHER;
  a.label = entity + ": " + metric;
  for (int p : d.points)
    a.values[p] = d.at(p, entity, metric).mean;
  return a;
}

std::string pareto_of(const SweepData& d, const ParetoAxis& x, const ParetoAxis& y, const std::string& id) {
  svg::ParetoChart chart;
  chart.id = id;
  chart.title = fmt::format("{} against {}: the front joined", y.label, x.label);
  chart.x_label = x.label + (x.higher_better ? " (more is better)" : " (less is better)");
  chart.y_label = y.label + (y.higher_better ? " (more is better)" : " (less is better)");
  chart.x_higher_better = x.higher_better, chart.y_higher_better = y.higher_better;
  std::vector<double> xs, ys;
  for (int p : d.points) {
    std::string values;
    for (std::size_t k = 0; k < d.keys.size(); ++k)
      values += fmt::format("{}{}={}", k ? ", " : "", d.keys[k], d.values.at(p)[k]);
    const double xv = x.values.at(p), yv = y.values.at(p);
    if (std::isfinite(xv) && std::isfinite(yv)) xs.push_back(xv), ys.push_back(yv);
    chart.points.push_back({xv, yv, fmt::format("point {}", p),
                            fmt::format("point {} ({}): {} {}, {} {}", p, values, x.label, report_number(xv), y.label,
                                        report_number(yv))});
  }
  chart.log_x = svg::prefers_log(xs), chart.log_y = svg::prefers_log(ys);
  return svg::pareto_chart(chart);
}

/// "X,Y" into its two names.
std::pair<std::string, std::string> pareto_pair(const std::string& text) {
  const auto comma = text.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == text.size() ||
      text.find(',', comma + 1) != std::string::npos)
    throw std::runtime_error(fmt::format("--pareto must be two metrics X,Y (got {})", text));
  return {text.substr(0, comma), text.substr(comma + 1)};
}

std::string pareto_section(const std::filesystem::path& dir, const SweepData& d, const std::vector<std::string>& chosen) {
  std::string out = "<section id=\"pareto\"><h2>Pareto fronts</h2>\n";
  std::vector<std::tuple<std::string, std::string, std::string>> pairs; // x, y, chart id
  for (const auto& text : chosen) {
    const auto [x, y] = pareto_pair(text);
    pairs.emplace_back(x, y, "pareto-" + report_html_id(x) + "-vs-" + report_html_id(y));
  }
  if (chosen.empty()) {
    const std::string entity = d.has("cluster", "goodput_frac") ? "cluster"
                               : entities_of(d, "goodput_frac").empty() ? ""
                                                                         : entities_of(d, "goodput_frac").front();
    if (entity.empty())
      return out + "<p class=\"note\">No goodput_frac in sweep.csv: no Pareto front.</p></section>\n";
    pairs.emplace_back("gpus", entity + ":goodput_frac", "pareto-gpus");
    if (d.has("cluster", "cost_total_usd")) pairs.emplace_back("cost_total_usd", entity + ":goodput_frac", "pareto-cost");
  }
  out += "<p>Each point's mean over its replicas; faint points are dominated: another point is at least as good "
         "on both axes and better on one. Choose the axes with <code>dcsim report DIR --pareto X,Y</code> "
         "(default: goodput_frac against the GPUs, and against cost_total_usd with a cost block).</p>\n";
  std::string charts;
  for (const auto& [x, y, id] : pairs) {
    const ParetoAxis ax = pareto_axis(dir, d, x), ay = pareto_axis(dir, d, y);
    const auto& v = ax.values;
    const bool same = !v.empty() && std::all_of(v.begin(), v.end(), [&](const auto& g) { return g.second == v.begin()->second; });
    if (x == "gpus" && same && std::isfinite(v.begin()->second))
      out += fmt::format("<p class=\"note\">Every point has {:.0f} GPUs: against GPUs, the front is the point(s) of "
                         "the best {}.</p>\n",
                         v.begin()->second, escape(ay.label));
    charts += pareto_of(d, ax, ay, id);
  }
  return out + "<div class=\"charts\">\n" + charts + "</div></section>\n";
}

std::string invalid_section(const std::filesystem::path& dir) {
  const auto path = dir / INVALID_POINTS_FILE;
  if (!sim::any_variant(path)) return "";
  const auto doc = sim::read_csv_file(path);
  std::string out =
      fmt::format("<section id=\"invalid-points\"><h2>Invalid points (skipped)</h2>\n<p>{} points "
                  "did not decode and were not run (--skip-invalid); they are not plotted.</p>\n"
                  "<table class=\"summary-table\"><thead><tr>",
                  doc.rows.size());
  for (const auto& h : doc.header)
    out += fmt::format("<th>{}</th>", escape(h));
  out += "</tr></thead><tbody>\n";
  for (const auto& row : doc.rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c)
      out += fmt::format("<td{}>{}</td>", c + 1 == row.size() ? " class=\"metric\"" : "", escape(row[c]));
    out += "</tr>\n";
  }
  return out + "</tbody></table></section>\n";
}

std::string table_section(const SweepData& d, const std::vector<std::string>& metrics) {
  std::string out =
      "<section id=\"sweep-table\"><h2>Every point</h2>\n<table class=\"summary-table\"><thead><tr>"
      "<th>point</th>";
  for (const auto& k : d.keys)
    out += fmt::format("<th>{}</th>", escape(k));
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& m : metrics)
    for (const auto& e : entities_of(d, m))
      columns.emplace_back(e, m), out += fmt::format("<th>{}: {}</th>", escape(e), escape(m));
  out += "</tr></thead><tbody>\n";
  for (int p : d.points) {
    out += fmt::format("<tr><td>{}</td>", p);
    for (const auto& v : d.values.at(p))
      out += fmt::format("<td>{}</td>", escape(v));
    for (const auto& [e, m] : columns)
      out += fmt::format("<td>{}</td>", escape(mean_text(d.at(p, e, m))));
    out += "</tr>\n";
  }
  return out + "</tbody></table></section>\n";
}

} // namespace

bool is_sweep_folder(const std::filesystem::path& dir) {
  return sim::any_variant(dir / "sweep.csv"); // or sweep.csv.gz, sweep.csv.zst
}

std::string sweep_report_html(const std::filesystem::path& dir, const std::vector<std::string>& chosen,
                              const std::vector<std::string>& pareto) {
  const SweepData d = read_sweep(dir);
  const std::vector<std::string> metrics = chosen.empty() ? std::vector<std::string>{"goodput_frac"} : chosen;
  for (const auto& m : metrics)
    if (entities_of(d, m).empty())
      throw std::runtime_error(fmt::format("sweep.csv: no metric {} (--metric)", m));
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += fmt::format("<title>dcsim sweep report: {}</title>\n<style>{}</style></head><body>\n",
                      escape(d.scenario), report_css());
  html +=
      fmt::format("<h1 id=\"title\">dcsim sweep report: {}</h1>\n<section id=\"sweep-facts\"><p>{} points "
                  "run; varied keys:</p><ul>",
                  escape(d.scenario), d.points.size());
  for (std::size_t k = 0; k < d.keys.size(); ++k) {
    std::string values;
    for (const auto& v : d.key_values[k])
      values += (values.empty() ? "" : ", ") + v;
    html += fmt::format("<li><code>{}</code>: {}</li>", escape(d.keys[k]), escape(values));
  }
  html += "</ul></section>\n<nav><a href=\"#sweep-metrics\">Metrics</a> · ";
  html += d.keys.size() == 2 ? "<a href=\"#sweep-heatmap\">Heatmap</a> · " : "";
  html += "<a href=\"#pareto\">Pareto front</a> · <a href=\"#sweep-table\">Every point</a></nav>\n";
  html += metrics_section(d, metrics) + heatmap_section(d, metrics) + pareto_section(dir, d, pareto) +
          invalid_section(dir) + table_section(d, metrics);
  return html + "<footer><p>Generated by dcsim report from sweep.csv and the points' scenario.json files.</p>"
                "</footer>\n</body></html>\n";
}

} // namespace dcsim::tools
