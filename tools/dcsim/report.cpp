#include "tools/dcsim/report.hpp"

#include "sim/compressed_file.hpp"

#include "sim/csv.hpp"
#include "sim/csv_reader.hpp"
#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/report_events.hpp"
#include "tools/dcsim/report_fabric.hpp"
#include "tools/dcsim/report_losses.hpp"
#include "tools/dcsim/report_slowdowns.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/svg_axis.hpp"
#include "tools/dcsim/svg_chart.hpp"
#include "tools/dcsim/sweep_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace dcsim::tools {

using svg::escape;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

std::optional<sim::CsvDocument> optional_csv(const std::filesystem::path& path, std::string& note) {
  if (!sim::any_variant(path)) { // path, or its compressed path.gz / path.zst
    note = fmt::format("{} is not in this run's outputs.", path.filename().string());
    return std::nullopt;
  }
  try {
    return sim::read_csv_file(path);
  } catch (const std::exception& e) {
    note = fmt::format("{} could not be read: {}", path.filename().string(), e.what());
    return std::nullopt;
  }
}

std::string note_html(const std::string& text) {
  return fmt::format("<p class=\"note\">{}</p>\n", escape(text));
}

std::string fmt_value(double v) {
  if (std::isnan(v)) return "–";
  if (std::isinf(v)) return v > 0 ? "∞" : "−∞";
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return fmt::format("{:.4g}", v);
  if (std::fabs(v) >= 1000) return fmt::format("{:.1f}", v);
  return fmt::format("{:.4f}", v);
}

double num(const std::vector<std::string>& row, std::size_t col) {
  try {
    return sim::csv_number(row[col]);
  } catch (const std::exception&) {
    return NaN;
  }
}

/// Entities (jobs, then cluster) in order of first appearance in a column.
std::vector<std::string> ordered_unique(const sim::CsvDocument& doc, std::size_t col) {
  std::vector<std::string> out;
  for (const auto& row : doc.rows)
    if (std::find(out.begin(), out.end(), row[col]) == out.end()) out.push_back(row[col]);
  return out;
}

std::string html_id(std::string_view text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

// ---------------------------------------------------------------------------------------------------

std::string summary_section(const sim::CsvDocument& summary) {
  const std::string label = "summary.csv";
  const auto job = summary.require_column("job", label), metric = summary.require_column("metric", label),
             mean = summary.require_column("mean", label), low = summary.require_column("ci95_low", label),
             high = summary.require_column("ci95_high", label);
  const auto jobs = ordered_unique(summary, job);
  const auto metrics = ordered_unique(summary, metric);
  std::map<std::pair<std::string, std::string>, const std::vector<std::string>*> cell;
  for (const auto& row : summary.rows)
    cell[{row[job], row[metric]}] = &row;
  std::string out = "<section id=\"summary\"><h2>Summary</h2>\n<p>Mean over replicas with its 95% confidence "
                    "interval (Student t), clipped to the values the metric can take (a fraction to [0, 1]).</p>\n<table class=\"summary-table\"><thead><tr><th>metric</th>";
  for (const auto& j : jobs)
    out += fmt::format("<th>{}</th>", escape(j));
  out += "</tr></thead><tbody>\n";
  for (const auto& m : metrics) {
    out += fmt::format("<tr><td class=\"metric\">{}</td>", escape(m));
    for (const auto& j : jobs) {
      auto it = cell.find({j, m});
      if (it == cell.end()) {
        out += "<td></td>";
        continue;
      }
      const auto& row = *it->second;
      const auto range = svg::metric_range(m); // an interval past a fraction's 1 is shown ending at 1
      const double v = num(row, mean), lo = range.clip(num(row, low)), hi = range.clip(num(row, high));
      out += std::isnan(lo) || lo == hi ? fmt::format("<td>{}</td>", fmt_value(v))
                                        : fmt::format("<td>{} <span class=\"ci\">[{}, {}]</span></td>",
                                                      fmt_value(v), fmt_value(lo), fmt_value(hi));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></section>\n";
}

/// A job's restart split into its parts (restart_s "auto"): summary.csv's restart_<part>_gpu_h means, in
/// run order, and what is left of the ledger's restart (ft_dp's rejoin stalls); empty when not in parts.
std::vector<svg::WaterfallStep> restart_parts(const sim::CsvDocument* summary, const std::string& entity,
                                              double restart_share, double total_per_replica) {
  std::vector<svg::WaterfallStep> parts;
  if (!summary || !(total_per_replica > 0)) return parts;
  const auto job = summary->column("job"), metric = summary->column("metric"), mean = summary->column("mean");
  if (!job || !metric || !mean) return parts;
  double sum = 0;
  for (const char* part : {"reschedule", "init", "load"}) {
    const std::string name = fmt::format("restart_{}_gpu_h", part);
    for (const auto& row : summary->rows)
      if (row[*job] == entity && row[*metric] == name) {
        const double v = num(row, *mean);
        if (std::isnan(v)) return {};
        parts.push_back({fmt::format("restart: {}", part), v / total_per_replica});
        sum += v / total_per_replica;
      }
  }
  if (parts.size() != 3) return {};
  if (restart_share - sum > 1e-9) parts.push_back({"restart: rejoin", restart_share - sum});
  return parts;
}

std::string waterfall_section(const std::filesystem::path& dir) {
  std::string out =
      "<section id=\"waterfall\"><h2>Where the GPU-time went</h2>\n"
      "<p>From 100% of the GPU-time (a job's allocation; the cluster's GPUs × duration) down to "
      "productive time, one step per ledger state, mean over replicas (ledger.csv); a restart in parts "
      "(restart_s \"auto\") is split into them (summary.csv).</p>\n";
  std::string charts;
  std::string note;
  const auto ledger = optional_csv(dir / "ledger.csv", note);
  if (!ledger) return out + note_html(note) + "</section>\n";
  std::string summary_note; // the restart's parts, when the run has them
  const auto summary = optional_csv(dir / "summary.csv", summary_note);
  const std::string label = "ledger.csv";
  const auto job = ledger->require_column("job", label), state = ledger->require_column("state", label),
             hours = ledger->require_column("gpu_hours", label);
  const auto replica = ledger->column("replica");
  for (const auto& entity : ordered_unique(*ledger, job)) {
    std::vector<std::string> states;
    std::map<std::string, double> sum;
    std::set<std::string> replicas;
    for (const auto& row : ledger->rows) {
      if (row[job] != entity) continue;
      if (!sum.count(row[state])) states.push_back(row[state]);
      const double v = num(row, hours);
      sum[row[state]] += std::isnan(v) ? 0 : v;
      replicas.insert(replica ? row[*replica] : "0");
    }
    double total = 0;
    for (const auto& [s, v] : sum)
      total += v;
    if (total <= 0) continue;
    std::vector<svg::WaterfallStep> losses;
    const double n = static_cast<double>(replicas.size());
    for (const auto& s : states) {
      if (s == "productive") continue;
      const auto parts = s == "restart" ? restart_parts(summary ? &*summary : nullptr, entity, sum[s] / total, total / n)
                                        : std::vector<svg::WaterfallStep>{};
      if (parts.empty())
        losses.push_back({s, sum[s] / total});
      else
        losses.insert(losses.end(), parts.begin(), parts.end());
    }
    charts += svg::waterfall_chart("waterfall-" + html_id(entity),
                                   fmt::format("{}: {:.0f} GPU-hours per replica, {:.2f}% productive", entity,
                                               total / n, sum["productive"] / total * 100),
                                   losses, {"productive", sum["productive"] / total});
  }
  return out + "<div class=\"charts\">\n" + charts + "</div></section>\n";
}

/// US dollars for a chart label: 1.160 M$, 21.9 k$, 512 $.
std::string usd_text(double usd) {
  if (std::fabs(usd) >= 1e6) return fmt::format("{:.3f} M$", usd / 1e6);
  if (std::fabs(usd) >= 1e3) return fmt::format("{:.1f} k$", usd / 1e3);
  return fmt::format("{:.0f} $", usd);
}

/// The cost waterfall (issue 16): each entity's cost_in_<state>_usd means from summary.csv, which sum to
/// its cost_total_usd (docs/cost.md), from 100% down to the cost of its productive (a service's serving)
/// GPU-hours. Empty when the run has no cost metrics (a scenario without a cost block).
std::string cost_waterfall_section(const sim::CsvDocument& summary) {
  const std::string label = "summary.csv";
  const auto job = summary.require_column("job", label), metric = summary.require_column("metric", label),
             mean = summary.require_column("mean", label);
  constexpr std::string_view PREFIX = "cost_in_", SUFFIX = "_usd";
  std::string charts;
  for (const auto& entity : ordered_unique(summary, job)) {
    std::vector<std::pair<std::string, double>> states;
    double total = 0;
    for (const auto& row : summary.rows) {
      const std::string& m = row[metric];
      if (row[job] != entity || m.size() <= PREFIX.size() + SUFFIX.size() || !m.starts_with(PREFIX) ||
          !m.ends_with(SUFFIX))
        continue;
      const double v = num(row, mean);
      if (std::isnan(v)) continue;
      states.emplace_back(m.substr(PREFIX.size(), m.size() - PREFIX.size() - SUFFIX.size()), v);
      total += v;
    }
    if (total <= 0) continue;
    const bool serving =
        std::any_of(states.begin(), states.end(), [](const auto& s) { return s.first == "serving"; });
    const std::string kept = serving ? "serving" : "productive";
    std::vector<svg::WaterfallStep> losses;
    double kept_usd = 0;
    for (const auto& [state, usd] : states) {
      if (state == kept)
        kept_usd += usd;
      else
        losses.push_back({fmt::format("{} ({})", state, usd_text(usd)), usd / total});
    }
    charts += svg::waterfall_chart(
        "cost-waterfall-" + html_id(entity),
        fmt::format("{}: {} per replica, {:.2f}% on {} GPU-hours", entity, usd_text(total),
                    kept_usd / total * 100, kept),
        losses, {fmt::format("{} ({})", kept, usd_text(kept_usd)), kept_usd / total}, 620, "cost");
  }
  if (charts.empty()) return "";
  return "<section id=\"cost-waterfall\"><h2>Where the money went</h2>\n"
         "<p>From 100% of an entity's cost over the run (cost_total_usd: depreciated capex, facility, crews "
         "and "
         "energy) down to the cost of its productive GPU-hours: the GPU-hours of each ledger state priced at "
         "its cost per GPU-hour (the cost_in_&lt;state&gt;_usd metrics, mean over replicas; "
         "docs/cost.md).</p>\n"
         "<div class=\"charts\">\n" +
         charts + "</div></section>\n";
}

std::string interruptions_section(const std::filesystem::path& dir) {
  std::string out =
      "<section id=\"interruptions\"><h2>Interruptions by cause</h2>\n"
      "<p>Mean per replica, by failure mode (causes.csv). MTTR: failure to back in service.</p>\n";
  std::string note;
  const auto causes = optional_csv(dir / "causes.csv", note);
  if (!causes) return out + note_html(note) + "</section>\n";
  const std::string label = "causes.csv";
  const auto job = causes->require_column("job", label), cause = causes->require_column("cause", label);
  const auto interruptions = causes->column("interruptions"), failures = causes->column("failures"),
             mttr = causes->column("mttr_h"), replica = causes->column("replica");
  std::set<std::string> replicas;
  for (const auto& row : causes->rows)
    replicas.insert(replica ? row[*replica] : "0");
  const double n = std::max<double>(1.0, static_cast<double>(replicas.size()));
  out += "<div class=\"charts\">\n";
  for (const auto& entity : ordered_unique(*causes, job)) {
    const bool cluster = entity == "cluster";
    const auto col = cluster ? failures : interruptions;
    if (!col) continue;
    std::map<std::string, double> total, mttr_sum, mttr_n;
    std::vector<std::string> order;
    for (const auto& row : causes->rows) {
      if (row[job] != entity) continue;
      if (!total.count(row[cause])) order.push_back(row[cause]);
      const double v = num(row, *col);
      total[row[cause]] += std::isnan(v) ? 0 : v;
      if (mttr) {
        const double m = num(row, *mttr);
        if (!std::isnan(m)) mttr_sum[row[cause]] += m, mttr_n[row[cause]] += 1;
      }
    }
    svg::BarChart chart{"causes-" + html_id(entity),
                        cluster ? "cluster: failures by cause" : entity + ": interruptions by cause",
                        cluster ? "failures per replica" : "interruptions per replica"};
    for (const auto& c : order) {
      std::string extra;
      if (cluster && mttr_n[c] > 0) extra = fmt::format("(MTTR {:.1f} h)", mttr_sum[c] / mttr_n[c]);
      chart.bars.push_back({c, total[c] / n, extra});
    }
    out += svg::bar_chart(chart);
  }
  return out + "</div></section>\n";
}

struct GaugeSeries {
  std::string entity, gauge;
  std::map<double, std::map<std::string, double>> by_time; ///< time_s -> replica -> value
};

bool is_cooling_or_power(const std::string& gauge) {
  for (const char* word : {"temp", "coolant", "flow", "valve", "cdu", "power", "thermal", "cooling", "throttl"})
    if (gauge.find(word) != std::string::npos) return true;
  for (const std::string unit : {"_c", "_w", "_kw", "_mw", "_l_per_min"}) // unit suffixes (docs/architecture.md)
    if (gauge.size() > unit.size() && gauge.compare(gauge.size() - unit.size(), unit.size(), unit) == 0) return true;
  return false;
}

svg::LineChart gauge_chart(const std::vector<const GaugeSeries*>& group, const std::string& title,
                           const std::string& id) {
  svg::LineChart chart;
  chart.id = id;
  chart.title = title;
  chart.x_label = "simulated time (h)";
  chart.y_label = group.front()->gauge;
  chart.step = true;
  for (const auto* g : group) {
    svg::Series s;
    s.name = g->entity;
    for (const auto& [t, values] : g->by_time) {
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      for (const auto& [replica, v] : values)
        sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
      s.x.push_back(t / 3600.0);
      s.y.push_back(sum / static_cast<double>(values.size()));
      s.y_low.push_back(lo);
      s.y_high.push_back(hi);
    }
    chart.series.push_back(std::move(s));
  }
  return chart;
}

/// The parts of a gauge as one series: at each time and replica their maximum (a gauge named *max*: the
/// hottest part) or their mean.
GaugeSeries aggregate_parts(const std::vector<const GaugeSeries*>& parts, const std::string& name) {
  const bool max = name.find("max") != std::string::npos;
  GaugeSeries out{fmt::format("{} of {} parts", max ? "max" : "mean", parts.size()), name, {}};
  std::map<double, std::map<std::string, double>> count;
  for (const auto* g : parts)
    for (const auto& [t, values] : g->by_time)
      for (const auto& [replica, v] : values) {
        auto [it, fresh] = out.by_time[t].try_emplace(replica, v);
        if (!fresh) it->second = max ? std::max(it->second, v) : it->second + v;
        count[t][replica] += 1;
      }
  if (!max)
    for (auto& [t, values] : out.by_time)
      for (auto& [replica, v] : values)
        v /= count[t][replica];
  return out;
}

/// The value of a series constant over time and replicas, or NaN.
double constant_value(const GaugeSeries& g) {
  double first = NaN;
  for (const auto& [t, values] : g.by_time)
    for (const auto& [replica, v] : values) {
      if (std::isnan(first)) first = v;
      if (v != first) return NaN;
    }
  return first;
}

/// The charts of one gauge: the cluster's total as its own chart, its parts (loops, racks, jobs) in
/// another, overlaid when few, aggregated when many (aggregate_parts).
std::string gauge_charts(const std::string& name, const std::vector<const GaugeSeries*>& group) {
  std::vector<const GaugeSeries*> cluster, parts;
  for (const auto* g : group)
    (g->entity == "cluster" ? cluster : parts).push_back(g);
  const std::string id = "gauge-" + html_id(name);
  std::string html;
  if (!cluster.empty())
    html += svg::line_chart(gauge_chart(cluster, parts.empty() ? name : name + ": cluster", id));
  if (parts.empty()) return html;
  const std::string parts_id = cluster.empty() ? id : id + "-parts";
  if (parts.size() <= 6) return html + svg::line_chart(gauge_chart(parts, name, parts_id));
  const GaugeSeries aggregate = aggregate_parts(parts, name);
  return html + svg::line_chart(gauge_chart({&aggregate}, fmt::format("{} ({})", name, aggregate.entity), parts_id));
}

/// Every (gauge, entity) of timeseries.csv, in order of appearance.
std::vector<GaugeSeries> read_gauges(const sim::CsvDocument& series) {
  const std::string label = "timeseries.csv";
  const auto time = series.require_column("time_s", label), entity = series.require_column("entity", label),
             gauge = series.require_column("gauge", label), value = series.require_column("value", label);
  const auto replica = series.column("replica");
  std::vector<GaugeSeries> all;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const auto& row : series.rows) {
    auto key = std::make_pair(row[gauge], row[entity]);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, all.size()).first;
      all.push_back({row[entity], row[gauge], {}});
    }
    const double v = num(row, value);
    if (!std::isnan(v)) all[it->second].by_time[num(row, time)][replica ? row[*replica] : "0"] = v;
  }
  return all;
}

std::string constant_gauges_table(const std::vector<std::tuple<std::string, std::string, double>>& rows,
                                  const std::string& id) {
  if (rows.empty()) return "";
  std::string out = "<h3>Constant over the run</h3>\n<table class=\"summary-table\" id=\"" + id + "\"><thead><tr><th>gauge</th><th>entity</th>"
                    "<th>value over the whole run</th></tr></thead><tbody>\n";
  for (const auto& [gauge, entity, value] : rows)
    out += fmt::format("<tr><td class=\"metric\">{}</td><td>{}</td><td>{}</td></tr>\n", escape(gauge),
                       escape(entity), fmt_value(value));
  return out + "</tbody></table>\n";
}

void timeseries_sections(const std::filesystem::path& dir, std::string& gauges_html,
                         std::string& cooling_html) {
  gauges_html =
      "<section id=\"timeseries\"><h2>Over time</h2>\n<p>Every gauge of timeseries.csv that changes: mean over "
      "replicas as a step line, the band from the lowest to the highest replica (<code>training</code> is the "
      "share of replicas training). The cluster's totals are drawn apart from their parts. Gauges constant over "
      "the run and every replica are listed in the table below the charts.</p>\n";
  cooling_html = "<section id=\"cooling-power\"><h2>Cooling and power</h2>\n";
  std::string note;
  const auto series = optional_csv(dir / "timeseries.csv", note);
  if (!series) {
    gauges_html += note_html(note) + "</section>\n";
    cooling_html += note_html(note) + "</section>\n";
    return;
  }
  const std::vector<GaugeSeries> all = read_gauges(*series);
  std::vector<std::string> gauges;
  for (const auto& g : all)
    if (std::find(gauges.begin(), gauges.end(), g.gauge) == gauges.end()) gauges.push_back(g.gauge);
  std::string charts, cooling_charts;
  std::vector<std::tuple<std::string, std::string, double>> constants, cooling_constants;
  for (const auto& name : gauges) {
    std::vector<const GaugeSeries*> group;
    bool constant = true;
    for (const auto& g : all)
      if (g.gauge == name) group.push_back(&g), constant = constant && !std::isnan(constant_value(g));
    const bool cooling = is_cooling_or_power(name);
    if (constant) {
      for (const auto* g : group)
        (cooling ? cooling_constants : constants).emplace_back(name, g->entity, constant_value(*g));
      continue;
    }
    (cooling ? cooling_charts : charts) += gauge_charts(name, group);
  }
  gauges_html += "<div class=\"charts\">\n" + charts + "</div>\n" + constant_gauges_table(constants, "constant-gauges") + "</section>\n";
  cooling_html += cooling_charts.empty() && cooling_constants.empty()
                      ? note_html("No cooling or power gauge in timeseries.csv: this run models neither.")
                      : "<div class=\"charts\">\n" + cooling_charts + "</div>";
  cooling_html += constant_gauges_table(cooling_constants, "constant-cooling-gauges") + "</section>\n";
}

// ---------------------------------------------------------------------------------------------------

struct RackCell {
  std::string name;
  double availability = 1.0;
  double failures = 0; ///< per replica
  std::string loop;
};

std::string availability_colour(double a) {
  if (std::isnan(a)) return "#dddddd";
  if (a >= 1.0) return "#1a9850";
  if (a >= 0.999) return "#91cf60";
  if (a >= 0.99) return "#fee08b";
  if (a >= 0.95) return "#fc8d59";
  return "#d73027";
}

std::string rack_grid_svg(const std::vector<RackCell>& cells) {
  // Loops are groups of cells; each loop a row of the grid (wrapped at 24 cells).
  std::vector<std::pair<std::string, std::vector<const RackCell*>>> loops;
  for (const auto& c : cells) {
    if (loops.empty() || loops.back().first != c.loop) loops.push_back({c.loop, {}});
    loops.back().second.push_back(&c);
  }
  // Large clusters get small unlabelled cells (each still has its tooltip).
  const bool compact = cells.size() > 200;
  const int CELL = compact ? 12 : 30, GAP = compact ? 2 : 4, PER_ROW = compact ? 64 : 24, LABEL = 90;
  int rows = 0;
  for (const auto& l : loops)
    rows += static_cast<int>((l.second.size() + PER_ROW - 1) / PER_ROW);
  const int width = LABEL + PER_ROW * (CELL + GAP) + 10;
  const int height = rows * (CELL + GAP) + static_cast<int>(loops.size()) * 6 + 50;
  std::string out =
      fmt::format("<svg class=\"chart\" id=\"rack-grid-svg\" xmlns=\"http://www.w3.org/2000/svg\" "
                  "width=\"{}\" height=\"{}\" "
                  "viewBox=\"0 0 {} {}\" role=\"img\"><title>racks coloured by availability</title>\n",
                  width, height, width, height);
  int y = 8;
  for (const auto& [loop, members] : loops) {
    out += fmt::format("<text x=\"4\" y=\"{}\" class=\"blabel-left\">{}</text>\n", y + (compact ? 10 : 19),
                       escape(loop));
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto* c = members[i];
      const int x = LABEL + static_cast<int>(i % PER_ROW) * (CELL + GAP);
      const int cy = y + static_cast<int>(i / PER_ROW) * (CELL + GAP);
      out += fmt::format(
          "<rect class=\"rack\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"{}\">"
          "<title>{}: availability {:.3f}%, {:.2f} failures per replica</title></rect>",
          x, cy, CELL, CELL, availability_colour(c->availability), escape(c->name), c->availability * 100,
          c->failures);
      if (compact) continue;
      const auto digits = c->name.find_first_of("0123456789");
      std::string short_name = digits == std::string::npos ? c->name : c->name.substr(digits);
      while (short_name.size() > 1 && short_name[0] == '0')
        short_name.erase(0, 1);
      out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"rack-label\">{}</text>\n", x + CELL / 2, cy + 19,
                         escape(short_name));
    }
    y += static_cast<int>((members.size() + PER_ROW - 1) / PER_ROW) * (CELL + GAP) + 6;
  }
  // Legend.
  int x = LABEL;
  for (const auto& [text, a] : std::vector<std::pair<std::string, double>>{
           {"100%", 1.0}, {"≥ 99.9%", 0.9995}, {"≥ 99%", 0.995}, {"≥ 95%", 0.96}, {"< 95%", 0.5}}) {
    out +=
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
                    "class=\"legend\">{}</text>",
                    x, y + 10, availability_colour(a), x + 16, y + 20, escape(text));
    x += 90;
  }
  return out + "\n</svg>\n";
}

/// The rack grid's cells from racks.csv (none when the run wrote none, or it lacks the columns: `note` says).
std::vector<RackCell> cells_from_racks_csv(const std::filesystem::path& dir, std::string& note) {
  std::vector<RackCell> cells;
  if (!sim::any_variant(dir / "racks.csv")) return cells;
  const auto racks = optional_csv(dir / "racks.csv", note);
  if (racks && racks->column("rack") && racks->column("availability_frac")) {
    const auto rack = *racks->column("rack"), avail = *racks->column("availability_frac");
    const auto loop = racks->column("loop");
    std::map<std::string, std::pair<double, double>> sums; // rack -> (sum, n)
    std::map<std::string, std::string> loops;
    std::vector<std::string> order = ordered_unique(*racks, rack);
    for (const auto& row : racks->rows) {
      const double v = num(row, avail);
      if (!std::isnan(v)) sums[row[rack]].first += v, sums[row[rack]].second += 1;
      if (loop) loops[row[rack]] = "loop " + row[*loop];
    }
    for (const auto& r : order)
      cells.push_back({r, sums[r].second > 0 ? sums[r].first / sums[r].second : NaN, NaN, loops[r]});
  } else if (racks) {
    note = "racks.csv has no rack and availability_frac columns; derived from events.csv instead.";
  }
  return cells;
}

/// Down GPU-hours and failures of each rack (by name), summed over the replicas events.csv holds.
struct RackDowntime {
  std::map<std::string, double> down_gpu_h, failures;
  std::size_t replicas = 0;
};

/// From failure → repair_done pairs of each component in events.csv, weighted by the GPUs it holds;
/// failures still open at the end count until `duration_h`.
RackDowntime downtime_from_events(const sim::CsvDocument& events, const hardware::RackSpec& rack_spec,
                                  double duration_h) {
  RackDowntime d;
  std::set<std::string> replicas_seen;
  std::map<std::string, double>& down_gpu_h = d.down_gpu_h;
  std::map<std::string, double>& failures = d.failures;
  const int rack_gpus = rack_spec.gpus_per_rack();
  const std::string label = "events.csv";
  const auto replica = events.require_column("replica", label),
             time = events.require_column("time_s", label), kind = events.require_column("kind", label),
             component = events.require_column("component", label),
             scope = events.require_column("scope", label);
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, int>>>
      open; // (replica, component)
  auto scope_gpus = [&](const std::string& s) {
    if (s == "gpu") return 1;
    if (s == "tray" || s == "node") return rack_spec.node_gpus();
    if (s == "rack") return rack_gpus;
    return 0;
  };
  auto rack_of = [](const std::string& c) { return c.substr(0, c.find('/')); };
  for (const auto& row : events.rows) {
    replicas_seen.insert(row[replica]);
    const std::string& k = row[kind];
    if (k == "failure" && row[component].rfind("rack", 0) == 0) {
      open[{row[replica], row[component]}].push_back({num(row, time), scope_gpus(row[scope])});
      failures[rack_of(row[component])] += 1;
    } else if (k == "repair_done") {
      auto it = open.find({row[replica], row[component]});
      if (it == open.end() || it->second.empty()) continue;
      const auto [t0, gpus] = it->second.front();
      it->second.erase(it->second.begin());
      down_gpu_h[rack_of(row[component])] += (num(row, time) - t0) / 3600.0 * gpus;
    }
  }
  for (const auto& [key, list] : open) // unrepaired at the end
    for (const auto& [t0, gpus] : list)
      down_gpu_h[rack_of(key.second)] += std::max(0.0, duration_h - t0 / 3600.0) * gpus;
  d.replicas = replicas_seen.size();
  return d;
}

std::string rack_grid_section(const std::filesystem::path& dir, const std::optional<Scenario>& scenario,
                              const sim::Json& document) {
  std::string out = "<section id=\"rack-grid\"><h2>Racks</h2>\n";
  std::string source;
  std::string note;
  // racks.csv, when a run writes it, is the better source.
  std::vector<RackCell> cells = cells_from_racks_csv(dir, note);
  if (!cells.empty()) source = "racks.csv";
  if (cells.empty()) {
    // Derived: down GPU-time of each rack from failure → repair_done pairs in events.csv.
    std::string events_note;
    const auto events = optional_csv(dir / "events.csv", events_note);
    if (!scenario) {
      out += note_html(
          (note.empty() ? "" : note + " ") +
          "No racks.csv, and no readable scenario.json to know the racks: the rack grid needs one of them.");
      return out + "</section>\n";
    }
    const auto& rack_spec = scenario->hardware.rack;
    const int racks = scenario->cluster.racks;
    const double duration_h = scenario->duration_h;
    const int rack_gpus = rack_spec.gpus_per_rack();
    const RackDowntime downtime = events ? downtime_from_events(*events, rack_spec, duration_h) : RackDowntime{};
    std::map<std::string, double> down_gpu_h = downtime.down_gpu_h, failures = downtime.failures;
    const double n = std::max<double>(1.0, static_cast<double>(downtime.replicas));
    int per_loop = 0;
    if (const auto* cooling =
            document.is_object() && document.contains("cooling") ? &document.at("cooling") : nullptr;
        cooling && cooling->is_object() && cooling->contains("racks_per_loop") &&
        cooling->at("racks_per_loop").is_number_integer())
      per_loop = cooling->at("racks_per_loop").get<int>();
    const int group = racks > 200 ? 64 : 16; // racks per row of the grid when no cooling loop is known
    for (int r = 0; r < racks; ++r) {
      const std::string name = fmt::format("rack{:04d}", r);
      const double down = down_gpu_h.count(name) ? down_gpu_h[name] : 0.0;
      const double availability = events ? 1.0 - down / (n * rack_gpus * duration_h) : NaN;
      const std::string loop = per_loop > 0 ? fmt::format("loop {}", r / per_loop)
                                            : fmt::format("racks {}–{}", r / group * group,
                                                          std::min(racks, r / group * group + group) - 1);
      cells.push_back({name, availability, failures.count(name) ? failures[name] / n : 0.0, loop});
    }
    source = events
                 ? "events.csv (failure to repair_done of each component, weighted by the GPUs it holds) and "
                   "scenario.json"
                 : "scenario.json only (" + events_note + ")";
  }
  out += fmt::format("<p>One cell per rack, coloured by availability (share of its GPU-time not down for a "
                     "failure or repair), mean over replicas; source: {}. Hover a cell for details.</p>\n",
                     escape(source));
  if (!note.empty()) out += note_html(note);
  out += rack_grid_svg(cells);
  return out + "</section>\n";
}

const char* STYLE = R"(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 32px; }
table.summary-table { border-collapse: collapse; font-size: 13px; }
table.summary-table th, table.summary-table td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
table.summary-table td.metric { text-align: left; font-family: monospace; }
span.ci { color: #777; font-size: 11px; }
p.note { color: #8a5a00; background: #fff6e0; padding: 6px 10px; border-left: 3px solid #e69f00; }
div.charts { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
svg.chart { background: #fff; border: 1px solid #eee; }
svg text { font-size: 11px; fill: #333; }
svg text.ctitle { font-size: 12px; font-weight: bold; }
svg text.ytick, svg text.blabel { text-anchor: end; }
svg text.xtick, svg text.xlabel, svg text.rack-label { text-anchor: middle; }
svg text.rack-label { font-size: 10px; fill: #111; }
svg rect.plot { fill: none; stroke: #ccc; }
svg line.grid { stroke: #eee; }
svg text.front-label { font-size: 11px; fill: #a04000; }
b.fail { color: #c0392b; }
h3 { font-size: 14px; margin: 16px 0 6px; }
)";

} // namespace

std::string report_html(const std::filesystem::path& dir) {
  const auto summary = sim::read_csv_file(dir / "summary.csv");
  std::optional<Scenario> scenario;
  sim::Json document;
  std::string scenario_note;
  if (std::filesystem::exists(dir / SCENARIO_DOCUMENT_FILE)) {
    const LoadedScenario loaded = load_scenario((dir / SCENARIO_DOCUMENT_FILE).string());
    scenario = loaded.scenario;
    document = loaded.document;
    if (!scenario) scenario_note = "scenario.json does not decode with this dcsim: " + loaded.errors;
  } else {
    scenario_note = "scenario.json is not in this run's outputs (runs before it was written).";
  }
  std::string name = "run";
  if (const auto col = summary.column("scenario"); col && !summary.rows.empty())
    name = summary.rows.front()[*col];

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html +=
      fmt::format("<title>dcsim report: {}</title>\n<style>{}</style></head><body>\n", escape(name), STYLE);
  html += fmt::format("<h1 id=\"title\">dcsim report: {}</h1>\n", escape(name));
  if (scenario) {
    const long long gpus =
        static_cast<long long>(scenario->cluster.racks) * scenario->hardware.rack.gpus_per_rack();
    html += fmt::format(
        "<p id=\"facts\">{} racks ({}), {} GPUs, {} jobs, {} replicas of {:g} h ({:g} days); seed {}."
        "</p>\n",
        scenario->cluster.racks, hardware::rack_kind_name(scenario->hardware.rack.kind), gpus,
        scenario->jobs.size(), scenario->replicas, scenario->duration_h, scenario->duration_h / 24,
        scenario->seed);
  } else {
    html += note_html(scenario_note);
  }
  const std::string cost = cost_waterfall_section(summary);
  html += "<nav><a href=\"#summary\">Summary</a> · <a href=\"#waterfall\">GPU-time</a> · <a href=\"#loss-waterfall\">By cause</a> · ";
  html += cost.empty() ? "" : "<a href=\"#cost-waterfall\">Cost</a> · ";
  html += "<a href=\"#interruptions\">Interruptions</a> · <a href=\"#fabric-slowdowns\">Fabric slowdowns</a> · <a href=\"#interruption-cdf\">Time between "
          "interruptions</a> · <a href=\"#job-timeline\">Job states</a> · <a href=\"#timeseries\">Over time</a> · <a "
          "href=\"#rack-grid\">Racks</a> · <a href=\"#cooling-power\">Cooling and power</a></nav>\n";
  html += summary_section(summary);
  html += waterfall_section(dir) + loss_waterfall_section(dir);
  html += cost;
  html += interruptions_section(dir);
  html += fabric_slowdown_section(dir);
  {
    std::string events_note;
    const auto events = optional_csv(dir / "events.csv", events_note);
    html += event_sections(events ? &*events : nullptr, events_note, scenario ? scenario->duration_h : NaN);
  }
  std::string gauges, cooling;
  timeseries_sections(dir, gauges, cooling);
  html += gauges;
  html += fabric_utilisation_section(dir, scenario && !scenario->end_when_jobs_done ? scenario->duration_h * 3600 : 0.0);
  html += rack_grid_section(dir, scenario, document);
  html += cooling;
  html += "<footer><p>Generated by dcsim report from the CSV files of this "
          "directory.</p></footer>\n</body></html>\n";
  return html;
}

std::string report_css() {
  return STYLE;
}

std::string report_number(double v) {
  return fmt_value(v);
}

std::string report_html_id(std::string_view text) {
  return html_id(text);
}

int report_command(const std::string& out_dir, const std::string& output, const std::vector<std::string>& metrics,
                   const std::vector<std::string>& pareto) {
  const std::filesystem::path dir(out_dir);
  if (!std::filesystem::is_directory(dir)) {
    std::cerr << fmt::format("dcsim report: {}: not a directory\n", out_dir);
    return 2;
  }
  const bool sweep = is_sweep_folder(dir);
  if (const std::string why = sweep ? "" : completion_problem(dir, {"summary.csv"}); !why.empty()) {
    std::cerr << fmt::format("dcsim report: {}: not a complete run's outputs: {}\n", out_dir, why);
    return 2;
  }
  if (!sweep && !pareto.empty()) {
    std::cerr << fmt::format("dcsim report: {}: --pareto needs a sweep's folder (sweep.csv)\n", out_dir);
    return 2;
  }
  std::string html;
  try {
    html = sweep ? sweep_report_html(dir, metrics, pareto) : report_html(dir);
  } catch (const std::exception& e) {
    std::cerr << "dcsim report: " << e.what() << "\n";
    return 2;
  }
  const std::filesystem::path path = output.empty() ? dir / "report.html" : std::filesystem::path(output);
  try {
    sim::write_file_atomically(path, html);
  } catch (const std::exception& e) {
    std::cerr << "dcsim report: " << e.what() << "\n";
    return 1;
  }
  std::cout << fmt::format("report written to {}\n", path.string());
  return 0;
}

} // namespace dcsim::tools
