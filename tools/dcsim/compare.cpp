#include "tools/dcsim/compare.hpp"

#include "sim/compressed_file.hpp"

#include "sim/csv.hpp"
#include "sim/csv_reader.hpp"
#include "sim/stats.hpp"
#include "sim/welch_test.hpp"
#include "tools/dcsim/compare_junit.hpp"
#include "tools/dcsim/compare_losses.hpp"
#include "tools/dcsim/compare_report.hpp"
#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/provenance.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
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
  /// job -> metric -> replica index -> value.
  std::map<std::string, std::map<std::string, std::map<long, double>>> replicas;
  std::optional<long long> seed; ///< the run's seed (scenario.json), when it says
};

/// The seed recorded in a run's scenario.json (the scenario as run); nullopt when absent or unreadable.
std::optional<long long> scenario_seed(const std::filesystem::path& dir) {
  std::ifstream in(dir / "scenario.json");
  if (!in) return std::nullopt;
  const Json doc = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("seed") || !doc.at("seed").is_number_integer()) return std::nullopt;
  return doc.at("seed").get<long long>();
}

double number_at(const std::vector<std::string>& row, std::size_t col, const std::string& label) {
  try {
    return sim::csv_number(row[col]);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", label, e.what()));
  }
}

/// Adds the gated causes' shares (compare_losses.hpp) to a run's data as metrics of their own.
void add_loss_shares(RunData& d, const std::filesystem::path& dir, const std::vector<Gate>& gates) {
  std::vector<std::string> metrics;
  for (const auto& g : gates)
    if (is_loss_share(g.metric)) metrics.push_back(g.metric);
  if (metrics.empty()) return;
  std::vector<std::string> jobs; // summary.csv's order (scenario order, then cluster)
  for (const auto& key : d.order)
    if (std::find(jobs.begin(), jobs.end(), key.first) == jobs.end()) jobs.push_back(key.first);
  const auto shares = read_loss_shares(dir, metrics);
  for (const auto& job : jobs)
    for (const auto& metric : metrics) {
      const auto it = shares.find({job, metric});
      if (it == shares.end()) continue;
      const auto& [key, by_replica] = *it;
      std::vector<double> v;
      for (const auto& [replica, share] : by_replica)
        v.push_back(share);
      const sim::Summary s = sim::summarize(v);
      d.summary[key] = {true, s.mean, s.ci95_low, s.ci95_high, static_cast<long>(s.n)};
      d.order.push_back(key);
      d.replicas[key.first][key.second] = by_replica;
    }
}

RunData read_run(const std::filesystem::path& dir, const std::vector<Gate>& gates) {
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
  const auto rindex = replicas.require_column("replica", rlabel);
  for (const auto& row : replicas.rows) {
    const auto replica = static_cast<long>(number_at(row, rindex, rlabel));
    for (std::size_t c = 0; c < replicas.header.size(); ++c) {
      if (c == rindex || c == rjob) continue;
      d.replicas[row[rjob]][replicas.header[c]][replica] = number_at(row, c, rlabel);
    }
  }
  d.seed = scenario_seed(dir);
  add_loss_shares(d, dir, gates);
  return d;
}

const std::map<long, double>& values_of(const RunData& d, const std::string& job, const std::string& metric) {
  static const std::map<long, double> none;
  auto j = d.replicas.find(job);
  if (j == d.replicas.end()) return none;
  auto m = j->second.find(metric);
  return m == j->second.end() ? none : m->second;
}

std::vector<double> values(const std::map<long, double>& by_replica) {
  std::vector<double> out;
  for (const auto& [replica, v] : by_replica)
    out.push_back(v);
  return out;
}

/// Whether two metrics' replicas pair up: the same replica indices on both sides.
bool same_replicas(const std::map<long, double>& a, const std::map<long, double>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first) return false;
  return true;
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

namespace {

const Gate* gate_of(const CompareSettings& settings, const std::string& metric) {
  for (const auto& g : settings.gates)
    if (g.metric == metric) return &g;
  return nullptr;
}

/// Whether a row can fail the comparison: with gates, the gated metrics only; without, every metric
/// with a direction.
bool gated(const CompareSettings& settings, const MetricComparison& r) {
  if (!settings.gates.empty()) return gate_of(settings, r.metric) != nullptr;
  return r.better && *r.better != Better::NONE;
}

/// The 95% interval of mean(b) − mean(a), as the test that was run sees it (MetricComparison).
std::pair<double, double> diff_interval(const std::vector<double>& a, const std::vector<double>& b,
                                        bool paired, const sim::WelchResult& test) {
  if (!test.testable) return {NaN, NaN};
  if (paired) {
    std::vector<double> d;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (!std::isnan(a[i]) && !std::isnan(b[i])) d.push_back(b[i] - a[i]);
    const sim::Summary s = sim::summarize(d);
    return {s.ci95_low, s.ci95_high};
  }
  const sim::Summary sa = sim::summarize(a), sb = sim::summarize(b);
  const double se = std::sqrt(sa.stddev * sa.stddev / static_cast<double>(sa.n) +
                              sb.stddev * sb.stddev / static_cast<double>(sb.n));
  const double half = se > 0 ? sim::student_t95(test.dof) * se : 0.0;
  return {test.mean_b - test.mean_a - half, test.mean_b - test.mean_a + half};
}

MetricComparison compare_metric(const RunData& a, const RunData& b, const std::string& job,
                                const std::string& metric, bool paired) {
  MetricComparison r;
  r.job = job;
  r.metric = metric;
  r.better = is_loss_share(metric) ? std::optional<Better>(Better::LOWER) : ledger::metric_direction(metric);
  if (auto it = a.summary.find({job, metric}); it != a.summary.end()) r.baseline = it->second;
  if (auto it = b.summary.find({job, metric}); it != b.summary.end()) r.candidate = it->second;
  r.diff = r.baseline.present && r.candidate.present ? r.candidate.mean - r.baseline.mean : NaN;
  r.diff_frac = r.baseline.present && r.baseline.mean != 0 ? r.diff / std::fabs(r.baseline.mean) : NaN;
  const auto& va = values_of(a, job, metric);
  const auto& vb = values_of(b, job, metric);
  const bool pairs = paired && same_replicas(va, vb);
  const auto finite = [](const std::map<long, double>& v) {
    return std::all_of(v.begin(), v.end(), [](const auto& kv) { return !std::isinf(kv.second); });
  };
  if (!finite(va) || !finite(vb) || std::isinf(r.baseline.mean) || std::isinf(r.candidate.mean)) {
    r.tested = false; // no t-test on infinities (the statistics library throws on them)
    r.diff_ci95_low = r.diff_ci95_high = r.p_value = r.p_adjusted = NaN;
    return r;
  }
  const auto test =
      pairs ? sim::paired_t_test(values(va), values(vb)) : sim::welch_t_test(values(va), values(vb));
  r.tested = test.testable && r.baseline.present && r.candidate.present;
  std::tie(r.diff_ci95_low, r.diff_ci95_high) =
      r.tested ? diff_interval(values(va), values(vb), pairs, test) : std::pair<double, double>{NaN, NaN};
  r.paired = r.tested && pairs;
  r.p_value = r.tested ? test.p_two_sided : NaN;
  r.p_adjusted = r.p_value;
  return r;
}

void holm_over_family(Comparison& c, const CompareSettings& settings) {
  std::vector<std::size_t> family;
  std::vector<double> p;
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    if (c.rows[i].tested && gated(settings, c.rows[i])) {
      family.push_back(i);
      p.push_back(c.rows[i].p_value);
    }
  const auto adjusted = sim::holm_adjust(p);
  for (std::size_t k = 0; k < family.size(); ++k)
    c.rows[family[k]].p_adjusted = adjusted[k];
  c.family = static_cast<int>(family.size());
}

void judge(MetricComparison& r, const CompareSettings& settings) {
  const bool can_fail = gated(settings, r);
  if (!r.candidate.present) {
    r.verdict = "missing";
    r.regression = can_fail;
    return;
  }
  if (!r.baseline.present) {
    r.verdict = "new";
    return;
  }
  const bool directional = r.better && *r.better != Better::NONE;
  if (std::isinf(r.baseline.mean) || std::isinf(r.candidate.mean)) { // a certain change, or none
    const double a = r.baseline.mean, b = r.candidate.mean;
    if (a == b) {
      r.verdict = "unchanged (infinite)";
      return;
    }
    const bool worse = directional
                           ? ((*r.better == Better::HIGHER && b < a) || (*r.better == Better::LOWER && b > a))
                           : gate_of(settings, r.metric) != nullptr;
    r.regression = worse && can_fail;
    r.verdict = r.regression  ? "REGRESSION (infinite)"
                : directional ? (worse ? "worse (not gated)" : "improved")
                              : "changed";
    return;
  }
  if (std::isnan(r.diff)) {
    r.verdict =
        std::isnan(r.baseline.mean) && std::isnan(r.candidate.mean) ? "undefined" : "undefined on one side";
    return;
  }
  const Gate* gate = gate_of(settings, r.metric);
  const double allowed = !gate            ? settings.tolerance_frac * std::fabs(r.baseline.mean)
                         : gate->relative ? gate->tolerance * std::fabs(r.baseline.mean)
                                          : gate->tolerance;
  const bool beyond = std::fabs(r.diff) > allowed;
  const bool significant = r.tested && r.p_adjusted < COMPARE_ALPHA;
  // A gated metric without a direction fails on a change either way.
  const bool worse = directional ? ((*r.better == Better::HIGHER && r.diff < 0) ||
                                    (*r.better == Better::LOWER && r.diff > 0))
                                 : gate != nullptr;
  if (!beyond)
    r.verdict = "within tolerance";
  else if (!significant)
    r.verdict = r.tested ? "not significant" : "no test";
  else if (worse && can_fail)
    r.verdict = "REGRESSION", r.regression = true;
  else
    r.verdict = directional ? (worse ? "worse (not gated)" : "improved") : "changed";
}

/// Why two runs' replicas cannot be paired.
std::string seed_note(std::optional<long long> a, std::optional<long long> b) {
  if (!a || !b)
    return fmt::format(
        "replicas cannot be paired: the {} scenario.json records no seed (the scenario gave no "
        "\"seed\" and the run no --seed), so replica i of each run did not provably draw the same "
        "random numbers; run both with the same --seed to pair them",
        !a && !b ? "baseline's and the candidate's"
        : !a     ? "baseline's"
                 : "candidate's");
  return fmt::format("replicas cannot be paired: the runs have different seeds (baseline {}, candidate {})",
                     *a, *b);
}

} // namespace

Comparison compare_runs(const std::filesystem::path& baseline, const std::filesystem::path& candidate,
                        const CompareSettings& settings) {
  const RunData a = read_run(baseline, settings.gates), b = read_run(candidate, settings.gates);
  Comparison c;
  c.baseline_dir = baseline.string();
  c.candidate_dir = candidate.string();
  c.tolerance_frac = settings.tolerance_frac;
  c.gates = settings.gates;
  const bool shared_seed = a.seed && b.seed && *a.seed == *b.seed;
  if (settings.test == TestChoice::PAIRED && !shared_seed)
    throw std::runtime_error("--test paired: " + seed_note(a.seed, b.seed));
  const bool paired = settings.test != TestChoice::WELCH && shared_seed;
  if (settings.test == TestChoice::AUTO && !shared_seed) c.pairing_note = seed_note(a.seed, b.seed);
  auto order = a.order;
  for (const auto& key : b.order)
    if (!a.summary.count(key)) order.push_back(key);
  for (const auto& [job, metric] : order)
    c.rows.push_back(compare_metric(a, b, job, metric, paired));
  holm_over_family(c, settings);
  for (auto& r : c.rows) {
    judge(r, settings);
    if (r.regression) ++c.regressions;
    if (r.paired) c.paired = true;
  }
  return c;
}

namespace {

std::string gates_text(const Comparison& c) {
  if (c.gates.empty()) return fmt::format("tolerance {:g}% of the baseline mean", c.tolerance_frac * 100);
  std::string out = "gates:";
  for (const auto& g : c.gates)
    out += g.relative ? fmt::format(" {} {:g}%", g.metric, g.tolerance * 100)
                      : fmt::format(" {} {:g}", g.metric, g.tolerance);
  return out;
}

} // namespace

Gate parse_gate(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument(fmt::format(
        "--metric must be NAME=TOLERANCE, e.g. goodput_frac=0.005 or goodput_frac=1% (got {})", text));
  Gate g;
  g.metric = text.substr(0, eq);
  std::string tol = text.substr(eq + 1);
  if (tol.back() == '%') {
    g.relative = true;
    tol.pop_back();
  }
  std::size_t used = 0;
  double v = NaN;
  try {
    v = std::stod(tol, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != tol.size() || !std::isfinite(v) || v < 0)
    throw std::invalid_argument(
        fmt::format("--metric {}: the tolerance must be a number >= 0, or a percentage (got {})", g.metric,
                    text.substr(eq + 1)));
  g.tolerance = g.relative ? v / 100 : v;
  return g;
}

std::string comparison_table(const Comparison& c) {
  std::string out = fmt::format("baseline  {}\ncandidate {}\n", c.baseline_dir, c.candidate_dir);
  out += fmt::format("test: {} on replicas.csv, p Holm-adjusted over {} {}, alpha {}; {}\n",
                     c.paired ? "paired t-test (the runs share their seed: replica i against replica i)"
                              : "Welch's two-sided t-test",
                     c.family, c.gates.empty() ? "directional metrics" : "gated metrics", COMPARE_ALPHA,
                     gates_text(c));
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
  if (!c.pairing_note.empty()) out += "note: " + c.pairing_note + "; Welch's test was used\n";
  int undeclared = 0;
  for (const auto& r : c.rows)
    if (!r.better) ++undeclared;
  if (undeclared)
    out += fmt::format(
        "note: {} metric rows have no declared direction (better \"?\"): compared, never a regression\n",
        undeclared);
  out += c.regressions
             ? fmt::format("{} regression{}: worse by more than the tolerance and significant (exit {})\n",
                           c.regressions, c.regressions == 1 ? "" : "s", COMPARE_EXIT_REGRESSION)
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
             {"paired", r.paired},
             {"p_value", json_number(r.p_value)},
             {"p_adjusted", json_number(r.p_adjusted)},
             {"verdict", r.verdict},
             {"regression", r.regression}});
  Json gates = Json::array();
  for (const auto& g : c.gates)
    gates.push_back(Json{{"metric", g.metric}, {"tolerance", g.tolerance}, {"relative", g.relative}});
  const Json out{{"baseline", c.baseline_dir},
                 {"candidate", c.candidate_dir},
                 {"test", c.paired ? "paired-two-sided-holm" : "welch-two-sided-holm"},
                 {"alpha", COMPARE_ALPHA},
                 {"tolerance_frac", c.tolerance_frac},
                 {"gates", gates},
                 {"family", c.family},
                 {"regressions", c.regressions},
                 {"pairing_note", c.pairing_note},
                 {"rows", rows}};
  return out.dump(1) + "\n";
}

std::string exact_differences(const std::filesystem::path& baseline, const std::filesystem::path& candidate) {
  // Files are compared by content: a compressed output (NAME.csv.gz, NAME.csv.zst) is read decompressed and
  // matches the same file written plain or compressed otherwise, under the plain name.
  std::string out;
  auto read = [](const std::filesystem::path& plain) -> std::optional<std::string> {
    try {
      if (!sim::any_variant(plain)) return std::nullopt;
      return sim::read_maybe_compressed(plain);
    } catch (const std::runtime_error&) {
      return std::nullopt;
    }
  };
  for (const std::string& listed : listed_output_files(baseline)) {
    if (listed == RUN_FILE) continue; // provenance: its date and host differ by design
    const std::string name = sim::plain_name(listed);
    const auto a = read(baseline / name), b = read(candidate / name);
    if (!a)
      out += fmt::format("{}: listed in the baseline's {} but unreadable\n", listed, COMPLETE_FILE);
    else if (!b)
      out += fmt::format("{}: missing from the candidate\n", name);
    else if (*a != *b)
      out += fmt::format("{}: differs ({} and {} bytes)\n", name, a->size(), b->size());
  }
  return out;
}

namespace {

/// Parses the options into settings; "" or what is wrong.
std::string compare_settings(const CompareOptions& o, CompareSettings& settings) {
  if (!(o.tolerance_frac >= 0) || !std::isfinite(o.tolerance_frac))
    return fmt::format("--tolerance-frac must be a number >= 0 (got {})", o.tolerance_frac);
  settings.tolerance_frac = o.tolerance_frac;
  if (o.test == "auto")
    settings.test = TestChoice::AUTO;
  else if (o.test == "welch")
    settings.test = TestChoice::WELCH;
  else if (o.test == "paired")
    settings.test = TestChoice::PAIRED;
  else
    return fmt::format("--test must be auto, welch or paired (got {})", o.test);
  try {
    for (const auto& text : o.gates)
      settings.gates.push_back(parse_gate(text));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

/// --report and --junit; 0, or 1 when one cannot be written (the comparison itself succeeded).
int write_compare_files(const CompareOptions& o, const Comparison& c) {
  for (const bool junit : {false, true}) {
    const std::string& path = junit ? o.junit_path : o.report_path;
    if (path.empty()) continue;
    try {
      sim::write_file_atomically(path, junit ? comparison_junit(c) : compare_report_html(c));
    } catch (const std::exception& e) {
      std::cerr << "dcsim compare: " << (junit ? "--junit: " : "--report: ") << e.what() << "\n";
      return 1;
    }
    std::cerr << fmt::format("{} written to {}\n", junit ? "JUnit XML" : "compare page", path);
  }
  return 0;
}

} // namespace

int compare_command(const CompareOptions& o) {
  CompareSettings settings;
  if (const std::string why = compare_settings(o, settings); !why.empty()) {
    std::cerr << "dcsim compare: " << why << "\n";
    return 2;
  }
  for (const std::string& dir : {o.baseline_dir, o.candidate_dir}) {
    if (!std::filesystem::is_directory(dir)) {
      std::cerr << fmt::format("dcsim compare: {}: not a directory\n", dir);
      return 2;
    }
    if (const std::string why = completion_problem(dir, {"summary.csv", "replicas.csv"}); !why.empty()) {
      std::cerr << fmt::format("dcsim compare: {}: not a complete run's outputs: {}\n", dir, why);
      return 2;
    }
  }
  if (o.exact && !o.junit_path.empty()) {
    std::cerr << "dcsim compare: --junit reports the metrics' tests; it does not apply to --exact\n";
    return 2;
  }
  if (o.exact) {
    std::string diff;
    try {
      diff = exact_differences(o.baseline_dir, o.candidate_dir);
    } catch (const std::exception& e) {
      std::cerr << "dcsim compare --exact: " << e.what() << "\n";
      return 2;
    }
    const auto lines = std::count(diff.begin(), diff.end(), '\n');
    std::cout << (diff.empty() ? "identical: every output file is byte for byte the same\n"
                               : diff + fmt::format("{} file{} differ{}: not identical (exit {})\n", lines,
                                                    lines == 1 ? "" : "s", lines == 1 ? "s" : "",
                                                    COMPARE_EXIT_REGRESSION))
              << std::flush;
    return diff.empty() ? 0 : COMPARE_EXIT_REGRESSION;
  }
  Comparison c;
  try {
    c = compare_runs(o.baseline_dir, o.candidate_dir, settings);
  } catch (const std::exception& e) {
    std::cerr << "dcsim compare: " << e.what() << "\n";
    return 2;
  }
  for (const auto& g : settings.gates) {
    const bool known =
        std::any_of(c.rows.begin(), c.rows.end(), [&](const auto& r) { return r.metric == g.metric; });
    if (!known) {
      std::cerr << fmt::format("dcsim compare: --metric {}: no such metric in either run\n", g.metric);
      return 2;
    }
  }
  std::cout << (o.json ? comparison_json(c) : comparison_table(c));
  if (const int failed = write_compare_files(o, c)) return failed;
  return c.regressions > 0 ? COMPARE_EXIT_REGRESSION : 0;
}

} // namespace dcsim::tools
