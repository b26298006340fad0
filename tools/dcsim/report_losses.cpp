#include "tools/dcsim/report_losses.hpp"

#include "sim/csv.hpp"
#include "sim/compressed_file.hpp"
#include "sim/csv_reader.hpp"
#include "tools/dcsim/report.hpp"
#include "tools/dcsim/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace dcsim::tools {

namespace {

constexpr std::size_t MAX_STEPS = 14;
constexpr double US_PER_H = 3600e6;

struct JobLosses {
  std::map<std::pair<std::string, std::string>, double> gpu_us; ///< (cause, state) -> GPU·µs, all replicas
  std::set<std::string> replicas;
};

std::string job_chart(const std::string& job, const JobLosses& l) {
  double paid = 0, productive = 0;
  std::vector<std::pair<double, std::string>> steps; // (GPU·µs, label)
  for (const auto& [key, t] : l.gpu_us) {
    paid += t;
    if (key.second == "productive")
      productive += t;
    else
      steps.emplace_back(t, key.first + " · " + key.second);
  }
  if (paid <= 0) return {};
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<svg::WaterfallStep> losses;
  double other = 0;
  std::size_t merged = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (i < MAX_STEPS) {
      losses.push_back({steps[i].second, steps[i].first / paid});
    } else {
      other += steps[i].first;
      ++merged;
    }
  }
  if (merged > 0) losses.push_back({fmt::format("other causes ({})", merged), other / paid});
  const double n = static_cast<double>(l.replicas.size());
  return svg::waterfall_chart("loss-waterfall-" + report_html_id(job),
                              fmt::format("{}: {:.0f} paid GPU-hours per replica, {:.2f}% productive", job,
                                          paid / US_PER_H / n, productive / paid * 100),
                              losses, {"productive", productive / paid}, 820, "paid GPU-hours", 250);
}

} // namespace

std::string loss_waterfall_section(const std::filesystem::path& dir) {
  std::string out =
      "<section id=\"loss-waterfall\"><h2>Where the GPU-time went, by cause</h2>\n"
      "<p>From the GPU-hours each job held (paid, 100%) down to its productive ones: one step per cause "
      "(failure mode or mechanism) and ledger state, largest first, over all replicas (losses.csv). A failure "
      "mode's steps are the work it made redo (rework), its detection, the wait for replacements and the "
      "restart; mechanisms are checkpoint writes, slowdowns, ft_dp groups out, planned stops, the launch and "
      "rescheduling.</p>\n";
  const auto path = dir / "losses.csv";
  if (!sim::any_variant(path))
    return out + "<p class=\"note\">No losses.csv in this run's outputs (runs before it was written).</p></section>\n";
  sim::CsvDocument doc;
  try {
    doc = sim::read_csv_file(path);
  } catch (const std::exception& e) {
    return out + "<p class=\"note\">" + svg::escape(e.what()) + "</p></section>\n";
  }
  const std::string label = "losses.csv";
  const auto job = doc.require_column("job", label), cause = doc.require_column("cause", label),
             state = doc.require_column("state", label), gpu_us = doc.require_column("gpu_us", label),
             replica = doc.require_column("replica", label);
  std::vector<std::string> order;
  std::map<std::string, JobLosses> jobs;
  for (const auto& row : doc.rows) {
    if (!jobs.count(row[job])) order.push_back(row[job]);
    JobLosses& l = jobs[row[job]];
    l.gpu_us[{row[cause], row[state]}] += sim::csv_number(row[gpu_us]);
    l.replicas.insert(row[replica]);
  }
  std::string charts;
  for (const auto& j : order)
    charts += job_chart(j, jobs[j]);
  return out + "<div class=\"charts\">\n" + charts + "</div></section>\n";
}

} // namespace dcsim::tools
