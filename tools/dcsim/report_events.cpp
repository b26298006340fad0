#include "tools/dcsim/report_events.hpp"

#include "tools/dcsim/svg_chart.hpp"
#include "tools/dcsim/svg_plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace dcsim::tools {

using svg::escape;

namespace {

/// A job's events, (replica, job) -> [(time_s, kind)], in file (time) order.
using JobEvents = std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, std::string>>>;

JobEvents job_events(const sim::CsvDocument& events) {
  const std::string label = "events.csv";
  const auto replica = events.require_column("replica", label), time = events.require_column("time_s", label),
             kind = events.require_column("kind", label),
             component = events.require_column("component", label),
             scope = events.require_column("scope", label);
  JobEvents out;
  for (const auto& row : events.rows) {
    if (row[scope] != "job") continue;
    double t = 0;
    try {
      t = sim::csv_number(row[time]);
    } catch (const std::exception&) {
      continue;
    }
    out[{row[replica], row[component]}].emplace_back(t, row[kind]);
  }
  return out;
}

std::vector<std::string> jobs_in_order(const JobEvents& events) {
  std::vector<std::string> jobs;
  for (const auto& [key, list] : events)
    if (std::find(jobs.begin(), jobs.end(), key.second) == jobs.end()) jobs.push_back(key.second);
  return jobs;
}

std::string cdf_section(const JobEvents& events) {
  std::string out =
      "<section id=\"interruption-cdf\"><h2>Time between interruptions</h2>\n<p>Empirical CDF of "
      "the time from one interruption of a job to its next (events.csv, every replica pooled): "
      "the share of gaps no longer than t.</p>\n";
  svg::LineChart chart;
  chart.id = "interruption-cdf-svg";
  chart.x_label = "time between interruptions (h)";
  chart.y_label = "share of gaps ≤ t";
  chart.step = true;
  std::string facts;
  for (const auto& job : jobs_in_order(events)) {
    std::vector<double> gaps;
    for (const auto& [key, list] : events) {
      if (key.second != job) continue;
      std::optional<double> last;
      for (const auto& [t, kind] : list) {
        if (kind != "interruption") continue;
        if (last) gaps.push_back((t - *last) / 3600.0);
        last = t;
      }
    }
    if (gaps.empty()) continue;
    std::sort(gaps.begin(), gaps.end());
    svg::Series s;
    s.name = job;
    for (std::size_t i = 0; i < gaps.size(); ++i)
      s.x.push_back(gaps[i]), s.y.push_back(static_cast<double>(i + 1) / static_cast<double>(gaps.size()));
    double sum = 0;
    for (double g : gaps)
      sum += g;
    facts += fmt::format("{}{}: {} gaps, median {:.1f} h, mean {:.1f} h", facts.empty() ? "" : "; ", job,
                         gaps.size(), gaps[(gaps.size() - 1) / 2], sum / static_cast<double>(gaps.size()));
    chart.series.push_back(std::move(s));
  }
  if (chart.series.empty())
    return out +
           "<p class=\"note\">No job was interrupted twice in one replica: no gap to draw.</p></section>\n";
  chart.title = facts;
  return out + svg::line_chart(chart) + "</section>\n";
}

/// The state a job's event starts; "" when the event changes nothing (checkpoint, placed, resized).
std::string state_after(const std::string& kind) {
  if (kind == "running") return "running";
  if (kind == "restart") return "restarting";
  if (kind == "interruption") return "down";
  if (kind == "waiting") return "waiting";
  if (kind == "drained" || kind == "planned_stop") return "stopped";
  if (kind == "completed" || kind == "released") return "done";
  return "";
}

std::string timeline_section(const JobEvents& events, double duration_h) {
  std::string out = "<section id=\"job-timeline\"><h2>Replica 0: each job's states</h2>\n<p>From replica 0's "
                    "events: running, restarting (restart to running), down (an interruption until the "
                    "restart: detection and any wait for repairs), waiting for GPUs, stopped (drained or a "
                    "planned stop). Hover a span for its dates.</p>\n";
  svg::Timeline chart;
  chart.id = "job-timeline-svg";
  chart.title = "replica 0";
  chart.x_label = "simulated time (h)";
  chart.states = {{"running", "#009e73"},
                  {"restarting", "#e69f00"},
                  {"down", "#d55e00"},
                  {"waiting", "#56b4e9"},
                  {"stopped", "#cc79a7"}};
  double end_h = duration_h;
  if (!std::isfinite(end_h)) {
    end_h = 0;
    for (const auto& [key, list] : events)
      if (!list.empty()) end_h = std::max(end_h, list.back().first / 3600.0);
  }
  for (const auto& [key, list] : events) {
    if (key.first != "0") continue;
    svg::TimelineRow row{key.second, {}};
    std::string state;
    double since = 0;
    for (const auto& [t, kind] : list) {
      const std::string next = state_after(kind);
      if (next.empty() || next == state) continue;
      if (!state.empty() && state != "done" && t > since)
        row.spans.push_back({since / 3600.0, t / 3600.0, state});
      state = next, since = t;
    }
    if (!state.empty() && state != "done" && end_h > since / 3600.0)
      row.spans.push_back({since / 3600.0, end_h, state});
    chart.rows.push_back(std::move(row));
  }
  if (chart.rows.empty()) return out + "<p class=\"note\">No job event in replica 0.</p></section>\n";
  chart.x_max = end_h;
  return out + svg::timeline_chart(chart) + "</section>\n";
}

} // namespace

std::string event_sections(const sim::CsvDocument* events, const std::string& note, double duration_h) {
  if (!events) {
    const std::string text = fmt::format("<p class=\"note\">{}</p>\n</section>\n", escape(note));
    return "<section id=\"interruption-cdf\"><h2>Time between interruptions</h2>\n" + text +
           "<section id=\"job-timeline\"><h2>Replica 0: each job's states</h2>\n" + text;
  }
  const JobEvents by_job = job_events(*events);
  return cdf_section(by_job) + timeline_section(by_job, duration_h);
}

} // namespace dcsim::tools
