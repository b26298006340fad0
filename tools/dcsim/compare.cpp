#include "tools/dcsim/compare.hpp"

#include "sim/csv_reader.hpp"
#include "sim/welch_test.hpp"
#include "tools/dcsim/completion.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <stdexcept>

namespace dcsim::tools {

using Json = nlohmann::json;
using ledger::Better;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

struct RunData {
  /// (job, metric) -> stats, plus the order of appearance.
  std::map<std::pair<std::string, std::string>, MetricStats> summary;
  std::vector<std::pair<std::string, std::string>> order;
  /// job -> metric -> values by replica.
  std::map<std::string, std::map<std::string, std::vector<double>>> replicas;
};

double number_at(const std::vector<std::string>& row, std::size_t col, const std::string& label) {
  try {
    return sim::csv_number(row[col]);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", label, e.what()));
  }
}

RunData read_run(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(fmt::format("{}: not a directory", dir.string()));
  RunData d;
  const auto summary_path = dir / "summary.csv";
  const auto summary = sim::read_csv_file(summary_path);
  const std::string label = summary_path.string();
  const auto job = summary.require_column("job", label), metric = summary.require_column("metric", label),
             mean = summary.require_column("mean", label), low = summary.require_column("ci95_low", label),
             high = summary.require_column("ci95_high", label),
             reps = summary.require_column("replicas", label);
  for (const auto& row : summary.rows) {
    MetricStats s{true, number_at(row, mean, label), number_at(row, low, label), number_at(row, high, label),
                  static_cast<long>(number_at(row, reps, label))};
    auto key = std::make_pair(row[job], row[metric]);
    if (d.summary.emplace(key, s).second) d.order.push_back(key);
  }
  const auto replicas_path = dir / "replicas.csv";
  const auto replicas = sim::read_csv_file(replicas_path);
  const std::string rlabel = replicas_path.string();
  const auto rjob = replicas.require_column("job", rlabel);
  replicas.require_column("replica", rlabel);
  for (const auto& row : replicas.rows)
    for (std::size_t c = 0; c < replicas.header.size(); ++c) {
      if (replicas.header[c] == "replica" || c == rjob) continue;
      d.replicas[row[rjob]][replicas.header[c]].push_back(number_at(row, c, rlabel));
    }
  return d;
}

const std::vector<double>& values_of(const RunData& d, const std::string& job, const std::string& metric) {
  static const std::vector<double> none;
  auto j = d.replicas.find(job);
  if (j == d.replicas.end()) return none;
  auto m = j->second.find(metric);
  return m == j->second.end() ? none : m->second;
}

std::string fmt_value(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return fmt::format("{:.4g}", v);
  if (std::fabs(v) >= 1000) return fmt::format("{:.1f}", v);
  return fmt::format("{:.4f}", v);
}

std::string fmt_stats(const MetricStats& s) {
  if (!s.present) return "(absent)";
  if (std::isnan(s.ci95_low)) return fmt_value(s.mean);
  return fmt::format("{} [{}, {}]", fmt_value(s.mean), fmt_value(s.ci95_low), fmt_value(s.ci95_high));
}

Json json_number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json json_stats(const MetricStats& s) {
  if (!s.present) return nullptr;
  return Json{{"mean", json_number(s.mean)},
              {"ci95_low", json_number(s.ci95_low)},
              {"ci95_high", json_number(s.ci95_high)},
              {"replicas", s.replicas}};
}

} // namespace

Comparison compare_runs(const std::filesystem::path& baseline, const std::filesystem::path& candidate,
                        double tolerance_frac) {
  const RunData a = read_run(baseline), b = read_run(candidate);
  Comparison c;
  c.baseline_dir = baseline.string();
  c.candidate_dir = candidate.string();
  c.tolerance_frac = tolerance_frac;
  auto order = a.order;
  for (const auto& key : b.order)
    if (!a.summary.count(key)) order.push_back(key);

  for (const auto& [job, metric] : order) {
    MetricComparison r;
    r.job = job;
    r.metric = metric;
    r.better = ledger::metric_direction(metric);
    if (auto it = a.summary.find({job, metric}); it != a.summary.end()) r.baseline = it->second;
    if (auto it = b.summary.find({job, metric}); it != b.summary.end()) r.candidate = it->second;
    r.diff = r.baseline.present && r.candidate.present ? r.candidate.mean - r.baseline.mean : NaN;
    r.diff_frac = r.baseline.present && r.baseline.mean != 0 ? r.diff / std::fabs(r.baseline.mean) : NaN;
    const auto test = sim::welch_t_test(values_of(a, job, metric), values_of(b, job, metric));
    r.tested = test.testable && r.baseline.present && r.candidate.present;
    r.p_value = r.tested ? test.p_two_sided : NaN;
    r.p_adjusted = r.p_value;
    c.rows.push_back(std::move(r));
  }

  // Holm over the tested metrics that have a direction.
  std::vector<std::size_t> family;
  std::vector<double> p;
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    if (c.rows[i].tested && c.rows[i].better && *c.rows[i].better != Better::NONE) {
      family.push_back(i);
      p.push_back(c.rows[i].p_value);
    }
  const auto adjusted = sim::holm_adjust(p);
  for (std::size_t k = 0; k < family.size(); ++k)
    c.rows[family[k]].p_adjusted = adjusted[k];
  c.family = static_cast<int>(family.size());

  for (auto& r : c.rows) {
    const bool directional = r.better && *r.better != Better::NONE;
    if (!r.candidate.present) {
      r.verdict = "missing";
      r.regression = directional;
    } else if (!r.baseline.present) {
      r.verdict = "new";
    } else if (std::isnan(r.diff)) {
      r.verdict =
          std::isnan(r.baseline.mean) && std::isnan(r.candidate.mean) ? "undefined" : "undefined on one side";
    } else {
      const bool beyond = std::fabs(r.diff) > tolerance_frac * std::fabs(r.baseline.mean);
      const bool significant = r.tested && r.p_adjusted < COMPARE_ALPHA;
      const bool worse = directional && ((*r.better == Better::HIGHER && r.diff < 0) ||
                                         (*r.better == Better::LOWER && r.diff > 0));
      if (!beyond)
        r.verdict = "within tolerance";
      else if (!significant)
        r.verdict = r.tested ? "not significant" : "no test";
      else if (worse)
        r.verdict = "REGRESSION", r.regression = true;
      else
        r.verdict = directional ? "improved" : "changed";
    }
    if (r.regression) ++c.regressions;
  }
  return c;
}

std::string comparison_table(const Comparison& c) {
  std::string out = fmt::format("baseline  {}\ncandidate {}\n", c.baseline_dir, c.candidate_dir);
  out += fmt::format(
      "test: Welch's two-sided t-test on replicas.csv, p Holm-adjusted over {} directional metrics, "
      "alpha {}; tolerance {:g}% of the baseline mean\n",
      c.family, COMPARE_ALPHA, c.tolerance_frac * 100);
  out +=
      fmt::format("{:<14} {:<26} {:<6} {:>34} {:>34} {:>11} {:>8} {:>8}  {}\n", "job", "metric", "better",
                  "baseline mean [95% CI]", "candidate mean [95% CI]", "diff", "diff%", "p(adj)", "verdict");
  for (const auto& r : c.rows) {
    const std::string better = r.better ? std::string(ledger::better_name(*r.better)) : std::string("?");
    out += fmt::format(
        "{:<14} {:<26} {:<6} {:>34} {:>34} {:>11} {:>8} {:>8}  {}\n", r.job, r.metric, better,
        fmt_stats(r.baseline), fmt_stats(r.candidate), fmt_value(r.diff),
        std::isnan(r.diff_frac) ? std::string("-") : fmt::format("{:+.2f}%", r.diff_frac * 100),
        std::isnan(r.p_adjusted) ? std::string("-") : fmt::format("{:.2g}", r.p_adjusted), r.verdict);
  }
  int undeclared = 0;
  for (const auto& r : c.rows)
    if (!r.better) ++undeclared;
  if (undeclared)
    out += fmt::format(
        "note: {} metric rows have no declared direction (better \"?\"): compared, never a regression\n",
        undeclared);
  out += c.regressions
             ? fmt::format("{} regression{}: worse by more than the tolerance and significant (exit 1)\n",
                           c.regressions, c.regressions == 1 ? "" : "s")
             : std::string("no regression\n");
  return out;
}

std::string comparison_json(const Comparison& c) {
  Json rows = Json::array();
  for (const auto& r : c.rows)
    rows.push_back(
        Json{{"job", r.job},
             {"metric", r.metric},
             {"better", r.better ? Json(std::string(ledger::better_name(*r.better))) : Json(nullptr)},
             {"baseline", json_stats(r.baseline)},
             {"candidate", json_stats(r.candidate)},
             {"diff", json_number(r.diff)},
             {"diff_frac", json_number(r.diff_frac)},
             {"tested", r.tested},
             {"p_value", json_number(r.p_value)},
             {"p_adjusted", json_number(r.p_adjusted)},
             {"verdict", r.verdict},
             {"regression", r.regression}});
  const Json out{{"baseline", c.baseline_dir},         {"candidate", c.candidate_dir},
                 {"test", "welch-two-sided-holm"},     {"alpha", COMPARE_ALPHA},
                 {"tolerance_frac", c.tolerance_frac}, {"family", c.family},
                 {"regressions", c.regressions},       {"rows", rows}};
  return out.dump(1) + "\n";
}

int compare_command(const CompareOptions& o) {
  if (!(o.tolerance_frac >= 0) || !std::isfinite(o.tolerance_frac)) {
    std::cerr << fmt::format("dcsim compare: --tolerance-frac must be a number >= 0 (got {})\n",
                             o.tolerance_frac);
    return 2;
  }
  for (const std::string& dir : {o.baseline_dir, o.candidate_dir}) {
    if (!std::filesystem::is_directory(dir)) continue; // compare_runs says so
    if (const std::string why = completion_problem(dir, {"summary.csv", "replicas.csv"}); !why.empty()) {
      std::cerr << fmt::format("dcsim compare: {}: not a complete run's outputs: {}\n", dir, why);
      return 2;
    }
  }
  Comparison c;
  try {
    c = compare_runs(o.baseline_dir, o.candidate_dir, o.tolerance_frac);
  } catch (const std::exception& e) {
    std::cerr << "dcsim compare: " << e.what() << "\n";
    return 2;
  }
  std::cout << (o.json ? comparison_json(c) : comparison_table(c));
  return c.regressions > 0 ? 1 : 0;
}

} // namespace dcsim::tools
