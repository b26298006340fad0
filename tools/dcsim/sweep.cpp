#include "tools/dcsim/sweep.hpp"

#include "models/world.hpp"
#include "sim/csv.hpp"
#include "sim/csv_reader.hpp"
#include "sim/event_queue.hpp"
#include "sim/interrupt.hpp"
#include "sim/process_pool.hpp"
#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/output_folder.hpp"
#include "tools/dcsim/resource_budget.hpp"
#include "tools/dcsim/outputs.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace dcsim::tools {

using sim::Json;

namespace {

std::string read_file(const std::filesystem::path& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace

std::string parse_vary(std::string_view text, SweepAxis& axis) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return fmt::format("--vary {}: expected key.path=value1,value2,...", text);
  axis.key = std::string(text.substr(0, eq));
  axis.values.clear();
  const std::string_view list = text.substr(eq + 1);
  std::vector<std::string> items;
  std::string item;
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (in_string) {
      item += c;
      if (c == '\\' && i + 1 < list.size())
        item += list[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      items.push_back(std::move(item));
      item.clear();
      continue;
    }
    item += c;
  }
  items.push_back(std::move(item));
  for (const auto& v : items) {
    if (v.empty())
      return fmt::format("--vary {}: empty value in the list \"{}\"", sim::excerpt(axis.key),
                         sim::excerpt(list));
    std::string error;
    std::optional<Json> value = sim::parse_json_value(v, error);
    if (!error.empty()) return fmt::format("--vary {}: {}", sim::excerpt(axis.key), error);
    if (!value && !sim::valid_utf8(v))
      return fmt::format("--vary {}: a value is not valid UTF-8", sim::excerpt(axis.key));
    axis.values.push_back(value ? std::move(*value) : Json(v));
  }
  return {};
}

std::string render_sweep_value(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string SweepPoint::label() const {
  std::string out;
  for (std::size_t a = 0; a < keys.size(); ++a)
    out += fmt::format("{}{}={}", a ? ", " : "", keys[a], render_sweep_value(values[a]));
  return out;
}

std::vector<std::vector<std::size_t>> sweep_dimensions(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::size_t>> dims;
  std::size_t zip_dim = 0;
  bool zip_seen = false;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (!axes[a].zipped) {
      dims.push_back({a});
    } else if (!zip_seen) {
      zip_seen = true;
      zip_dim = dims.size();
      dims.push_back({a});
    } else {
      dims[zip_dim].push_back(a);
    }
  }
  return dims;
}

std::string zip_length_problem(const std::vector<SweepAxis>& axes) {
  const SweepAxis* first = nullptr;
  for (const auto& a : axes) {
    if (!a.zipped) continue;
    if (!first) first = &a;
    if (a.values.size() != first->values.size())
      return fmt::format(
          "zipped key {} lists {} values, but {} lists {} (zipped keys vary together: give each "
          "as many values)",
          sim::excerpt(a.key), a.values.size(), sim::excerpt(first->key), first->values.size());
  }
  return {};
}

std::string sweep_size_problem(const std::vector<SweepAxis>& axes) {
  double points = 1; // a double: a product of many axes overflows no integer type here
  for (const auto& dim : sweep_dimensions(axes))
    points *= static_cast<double>(axes[dim.front()].values.size());
  if (points <= static_cast<double>(MAX_SWEEP_POINTS)) return {};
  return fmt::format(
      "{:.0f} points (the product of the varied keys' value counts): more than dcsim's limit of {}", points,
      MAX_SWEEP_POINTS);
}

SweepPoints::SweepPoints(Json base, std::vector<SweepAxis> axes, Json replication)
    : base_(std::move(base)), axes_(std::move(axes)), replication_(std::move(replication)) {
  if (!sweep_size_problem(axes_).empty())
    throw std::length_error("SweepPoints: " + sweep_size_problem(axes_));
  if (!zip_length_problem(axes_).empty())
    throw std::invalid_argument("SweepPoints: " + zip_length_problem(axes_));
  dims_ = sweep_dimensions(axes_);
  std::size_t count = axes_.empty() ? 0 : 1;
  for (const auto& dim : dims_)
    count *= axes_[dim.front()].values.size();
  count_ = static_cast<int>(count); // at most MAX_SWEEP_POINTS
  for (const auto& a : axes_)
    keys_.push_back(a.key);
}

std::vector<Json> SweepPoints::values(int index) const {
  std::vector<Json> values(axes_.size());
  auto rest = static_cast<std::size_t>(index);
  for (std::size_t d = dims_.size(); d-- > 0;) { // last dimension fastest; zipped axes share one
    const std::size_t size = axes_[dims_[d].front()].values.size();
    for (const std::size_t a : dims_[d])
      values[a] = axes_[a].values[rest % size];
    rest /= size;
  }
  return values;
}

std::string SweepPoints::label(int index) const {
  SweepPoint p;
  p.keys = keys_;
  p.values = values(index);
  return p.label();
}

SweepPoint SweepPoints::point(int index) const {
  SweepPoint p;
  p.index = index;
  p.keys = keys_;
  p.values = values(index);
  p.replication = replication_;
  p.document = base_;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    const std::string error = sim::apply_override(p.document, axes_[a].key + "=" + p.values[a].dump());
    if (!error.empty() && p.apply_error.empty()) p.apply_error = error;
  }
  return p;
}

std::vector<SweepPoint> expand_points(const Json& base, const std::vector<SweepAxis>& axes) {
  const SweepPoints points(base, axes);
  std::vector<SweepPoint> out;
  out.reserve(static_cast<std::size_t>(points.size()));
  for (int i = 0; i < points.size(); ++i)
    out.push_back(points.point(i));
  return out;
}

std::string point_dir_name(int index, int points) {
  const int width = std::max(3, static_cast<int>(std::to_string(std::max(points - 1, 0)).size()));
  return fmt::format("point-{:0{}}", index, width);
}

void mark_point_complete(const std::filesystem::path& dir, const SweepPoint& point) {
  Json members{{"point", point.index}, {"scenario", point.document}};
  if (!point.replication.is_null()) members["replication"] = point.replication;
  write_completion_marker(dir, std::move(members));
}

bool point_is_complete(const std::filesystem::path& dir, const SweepPoint& point, std::string* why) {
  auto fail = [why](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  bool ok = false;
  const std::string text = read_file(dir / POINT_COMPLETE_FILE, ok);
  if (!ok) return fail("no complete.json");
  const Json marker = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (marker.is_discarded() || !marker.is_object() || !marker.contains("scenario") ||
      !marker.contains("files") || !marker.at("files").is_array())
    return fail("complete.json is not a completion record");
  if (marker.at("scenario") != point.document) return fail("complete.json records another scenario");
  if (marker.value("replication", Json()) != point.replication)
    return fail("complete.json records another replication (--ci-target, --max-replicas)");
  bool has_summary = false;
  for (const auto& f : marker.at("files")) {
    if (!f.is_object() || !f.contains("name") || !f.at("name").is_string())
      return fail("complete.json: bad file entry");
    const std::string name = f.at("name").get<std::string>();
    has_summary = has_summary || sim::plain_name(name) == summary_schema().name;
    bool read_ok = false;
    const std::string bytes = read_file(dir / name, read_ok);
    if (!read_ok) return fail(name + " is missing");
    if (!f.contains("bytes") || f.at("bytes") != Json(bytes.size()) || !f.contains("fnv1a64") ||
        f.at("fnv1a64") != Json(fnv1a64(bytes)))
      return fail(name + " differs from the one recorded");
  }
  if (!has_summary) return fail("complete.json lists no summary.csv");
  return true;
}

double summary_worst_goodput_half_width(const std::filesystem::path& summary_csv) {
  const auto summary = sim::read_csv_file(summary_csv);
  const std::size_t job = summary.require_column("job", "summary.csv"),
                    metric = summary.require_column("metric", "summary.csv"),
                    low = summary.require_column("ci95_low", "summary.csv"),
                    high = summary.require_column("ci95_high", "summary.csv");
  double worst = 0;
  for (const auto& row : summary.rows) {
    if (row[job] == "cluster" || row[metric] != "goodput_frac") continue;
    // As worst_goodput_half_width computes it from the doubles that summary.csv holds exactly.
    const double half = (sim::csv_number(row[high]) - sim::csv_number(row[low])) / 2;
    if (std::isnan(half)) return std::numeric_limits<double>::quiet_NaN();
    worst = std::max(worst, half);
  }
  return worst;
}

std::string sweep_csv_text(const std::filesystem::path& out_dir, const SweepPoints& points,
                           const std::vector<int>& indices) {
  const auto& axes = points.axes();
  const auto& summary_columns = summary_schema().columns;
  sim::CsvSchema schema{"sweep.csv", {"point"}};
  for (const auto& a : axes) {
    const bool clash = a.key == "point" || std::find(summary_columns.begin(), summary_columns.end(), a.key) !=
                                               summary_columns.end();
    schema.columns.push_back(clash ? "sweep." + a.key : a.key);
  }
  for (const auto& c : summary_columns)
    schema.columns.push_back(c);
  sim::CsvTable table(schema);
  for (const int point : indices) {
    const auto summary =
        sim::read_csv_file(out_dir / "points" / point_dir_name(point, points.size()) / summary_schema().name);
    std::vector<std::size_t> index;
    for (const auto& c : summary_columns)
      index.push_back(summary.require_column(c, "summary.csv"));
    const std::vector<Json> values = points.values(point);
    for (const auto& row : summary.rows) {
      auto w = table.row();
      w << static_cast<std::int64_t>(point);
      for (const auto& v : values)
        w << render_sweep_value(v);
      for (std::size_t c = 0; c < index.size(); ++c)
        w << std::string_view(row[index[c]]); // numbers copied verbatim: byte-identical to the point's file
    }
  }
  return table.text();
}

namespace {

void print_progress(double frac, int done, int total, int resumed, double elapsed_s, bool tty,
                    bool final_line) {
  constexpr int WIDTH = 24;
  const int filled = static_cast<int>(frac * WIDTH + 0.5);
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                          std::string(static_cast<std::size_t>(WIDTH - filled), '-');
  const std::string eta = frac > 0 && frac < 1 ? fmt::format("ETA {:.0f} s", elapsed_s * (1 - frac) / frac)
                                               : (frac >= 1 ? std::string("done") : std::string("ETA -"));
  std::cerr << fmt::format("{}dcsim sweep: [{}] {}/{} points done{}, {:.0f}% | {:.1f} s, {}{}",
                           tty ? "\r" : "", bar, done + resumed, total + resumed,
                           resumed ? fmt::format(" ({} resumed)", resumed) : std::string(), frac * 100,
                           elapsed_s, eta, tty ? (final_line ? "\n" : "   ") : "\n")
            << std::flush;
}

} // namespace

std::string parse_shard(std::string_view text, int& index, int& count) {
  const auto slash = text.find('/');
  auto number = [](std::string_view digits, int& out) {
    if (digits.empty() || digits.size() > 6 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    out = std::stoi(std::string(digits));
    return true;
  };
  if (slash == std::string_view::npos || !number(text.substr(0, slash), index) ||
      !number(text.substr(slash + 1), count) || count < 1 || index < 1 || index > count)
    return fmt::format("--shard {}: expected I/N with 1 <= I <= N <= 999999", sim::excerpt(text));
  return {};
}

bool point_in_shard(int point, int index, int count) {
  return count <= 1 || point % count == index - 1;
}

namespace {

constexpr int NOT_DONE = -1; ///< a step's result when the command goes on

/// The scenario's sweep block, then the --vary options; NOT_DONE, or the exit code.
int collect_axes(const SweepOptions& o, const Scenario& scenario, std::vector<SweepAxis>& axes) {
  axes = scenario.sweep;
  std::vector<std::string> given;                  // keys varied on the command line
  std::vector<std::pair<std::string, bool>> texts; // (--vary or --zip text, zipped)
  for (const auto& text : o.vary)
    texts.emplace_back(text, false);
  for (const auto& text : o.zip)
    texts.emplace_back(text, true);
  for (const auto& [text, zipped] : texts) {
    SweepAxis axis;
    if (const std::string error = parse_vary(text, axis); !error.empty()) {
      std::cerr << "dcsim sweep: " << (zipped ? "--zip" + error.substr(6) : error) << "\n";
      return EXIT_BAD_INPUT;
    }
    axis.zipped = zipped;
    auto same = std::find_if(axes.begin(), axes.end(), [&](const SweepAxis& a) { return a.key == axis.key; });
    if (std::find(given.begin(), given.end(), axis.key) != given.end()) {
      std::cerr << fmt::format("dcsim sweep: {} {}: the key is varied twice\n", zipped ? "--zip" : "--vary",
                               axis.key);
      return EXIT_BAD_INPUT;
    }
    given.push_back(axis.key);
    if (same != axes.end())
      *same = std::move(axis);
    else
      axes.push_back(std::move(axis));
  }
  if (axes.empty()) {
    std::cerr << "dcsim sweep: nothing to vary: give --vary key.path=v1,v2,... or a \"sweep\" block in the "
                 "scenario\n";
    return EXIT_BAD_INPUT;
  }
  if (const std::string problem = zip_length_problem(axes); !problem.empty()) {
    std::cerr << "dcsim sweep: " << problem << "\n";
    return EXIT_BAD_INPUT;
  }
  if (const std::string problem = sweep_size_problem(axes); !problem.empty()) {
    std::cerr << "dcsim sweep: " << problem << "\n";
    return EXIT_BAD_INPUT;
  }
  return NOT_DONE;
}

/// The decoded sweep: its axes and points (built on demand), which points are valid, and where it writes.
struct SweepPlan {
  std::vector<SweepAxis> axes;
  std::optional<SweepPoints> points;
  std::vector<std::uint8_t> valid;       ///< per point: 1 when it decodes
  std::map<int, std::string> problems;   ///< the invalid points' problems (as formatted for the scenario)
  std::filesystem::path out_dir;
  std::string name;
  int count() const { return points ? points->size() : 0; }
  bool is_valid(int index) const { return valid[static_cast<std::size_t>(index)] != 0; }
  /// The points that decoded (every point unless --skip-invalid skipped some).
  std::vector<int> valid_points() const {
    std::vector<int> out;
    for (int i = 0; i < count(); ++i)
      if (is_valid(i)) out.push_back(i);
    return out;
  }
  std::filesystem::path point_dir(int index) const {
    return out_dir / "points" / point_dir_name(index, count());
  }
};

/// Decodes a point's document as a run does (trace files read); its located problems go to `problems`.
std::optional<Scenario> decode_point(const SweepOptions& o, const SweepPoint& p, sim::Problems& problems) {
  try { // the boundary, as in load_scenario_text: a JSON library exception is an input error
    std::optional<Scenario> scenario = decode_document(p.document, o.scenario_path, {o.allow_outside_files}, problems);
    if (!problems.empty()) scenario.reset(); // a bad point has no scenario
    return scenario;
  } catch (const sim::Json::exception& e) {
    problems.add("", "cannot read the document: " + sim::excerpt(e.what(), 160));
  }
  return std::nullopt;
}

/// Validates every point, one at a time (built, decoded, checked against the budget, dropped): fills
/// plan.valid, plan.problems and plan.name, prints each bad point's located problems on stderr, and
/// returns the first valid point's budget problem ("" when none).
std::string validate_points(const SweepOptions& o, SweepPlan& plan, double budget) {
  const int parallel = o.parallel > 0 ? o.parallel : default_parallelism();
  std::string budget_problem;
  plan.valid.assign(static_cast<std::size_t>(plan.count()), 0);
  for (int i = 0; i < plan.count(); ++i) {
    const SweepPoint p = plan.points->point(i);
    if (!p.apply_error.empty()) {
      std::cerr << fmt::format("{} (sweep point {}: {}): {}\n", o.scenario_path, p.index, p.label(), p.apply_error);
      plan.problems[i] = p.apply_error;
      continue;
    }
    sim::Problems problems;
    const std::optional<Scenario> scenario = decode_point(o, p, problems);
    if (!scenario) {
      std::cerr << problems.format(fmt::format("{} (sweep point {}: {})", o.scenario_path, p.index, p.label()));
      plan.problems[i] = problems.format(o.scenario_path);
      continue;
    }
    plan.valid[static_cast<std::size_t>(i)] = 1;
    if (plan.name.empty()) plan.name = scenario->name; // the first valid point's
    if (!budget_problem.empty()) continue;
    Scenario most = *scenario; // with --ci-target, up to --max-replicas replicas
    if (o.ci_target > 0) most.replicas = std::max(most.replicas, o.max_replicas);
    if (const std::string problem = run_budget_problem(most, parallel, budget); !problem.empty())
      budget_problem = fmt::format("dcsim sweep: {} (sweep point {}: {}): {}\n", o.scenario_path, p.index, p.label(), problem);
  }
  return budget_problem;
}

/// Loads the scenario and validates every point; NOT_DONE, or the exit code.
int plan_sweep(const SweepOptions& o, SweepPlan& plan) {
  const LoadedScenario loaded = load_scenario(o.scenario_path, o.overrides, {o.allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return EXIT_BAD_INPUT;
  }
  if (const int code = collect_axes(o, *loaded.scenario, plan.axes); code != NOT_DONE) return code;
  Json base = loaded.document;
  base.erase("sweep");
  const double budget = memory_budget_bytes(o.memory_budget_gb);
  double count = 1;
  for (const auto& dim : sweep_dimensions(plan.axes))
    count *= static_cast<double>(plan.axes[dim.front()].values.size());
  // A point's sweep.csv rows: its summary.csv rows (about SUMMARY_BYTES_PER_JOB per job and as many for the
  // cluster) with the varied values; a shard writes no sweep.csv.
  const double csv_bytes = o.shard_count > 0 ? 0.0
                                             : static_cast<double>(loaded.scenario->jobs.size() + 1) *
                                                   (SUMMARY_BYTES_PER_JOB + 16.0 * static_cast<double>(plan.axes.size()));
  if (const std::string problem = sweep_plan_budget_problem(count, base.dump().size(), csv_bytes, budget);
      !problem.empty()) {
    std::cerr << "dcsim sweep: " << o.scenario_path << ": " << problem << "\n";
    return EXIT_NO_PROGRESS;
  }
  plan.points.emplace(std::move(base), plan.axes,
                      o.ci_target > 0 ? Json{{"ci_target", o.ci_target}, {"max_replicas", o.max_replicas}} : Json());
  const std::string budget_problem = validate_points(o, plan, budget);
  if (!plan.problems.empty()) {
    const std::size_t valid = plan.valid_points().size();
    if (!o.skip_invalid || valid == 0) {
      if (o.skip_invalid) std::cerr << "dcsim sweep: --skip-invalid: no point is valid\n";
      return EXIT_BAD_INPUT;
    }
    std::cerr << fmt::format(
        "dcsim sweep: --skip-invalid: {} of {} points are invalid and skipped (see above)\n",
        plan.count() - static_cast<int>(valid), plan.count());
  }
  if (!budget_problem.empty()) {
    std::cerr << budget_problem;
    return EXIT_NO_PROGRESS;
  }
  plan.out_dir = o.out_dir.empty() ? std::filesystem::path("out") / (loaded.scenario->name + "-sweep")
                                   : std::filesystem::path(o.out_dir);
  return NOT_DONE;
}

/// Progress on stderr while points run (a bar with points done and an ETA).
class SweepProgress {
public:
  SweepProgress(bool quiet, int resumed) : quiet_(quiet), resumed_(resumed) {}
  void operator()(const std::vector<double>& progress, int finished) {
    if (quiet_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const bool last = finished == static_cast<int>(progress.size());
    if (!tty_ && elapsed - last_line_ < 10.0 && !last) return;
    if (!last && elapsed < 1.0) return;
    last_line_ = elapsed;
    double done = 0;
    for (double p : progress)
      done += p;
    print_progress(progress.empty() ? 1.0 : done / static_cast<double>(progress.size()), finished,
                   static_cast<int>(progress.size()), resumed_, elapsed, tty_, last);
    printed_ = true;
  }
  /// Ends a bar left without its final line (nothing ran).
  void finish(bool nothing_ran) const {
    if (printed_ && tty_ && !quiet_ && nothing_ran) std::cerr << "\n";
  }

private:
  bool quiet_;
  int resumed_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  bool tty_ = ::isatty(STDERR_FILENO) != 0;
  double last_line_ = -10;
  bool printed_ = false;
};

/// Runs the points listed in `todo`, up to -j at once, each published complete.
void run_points(const SweepOptions& o, const SweepPlan& plan, const std::vector<int>& todo, int resumed) {
  const int parallel = o.parallel > 0 ? o.parallel : default_parallelism();
  const int outer = std::max(1, std::min(parallel, static_cast<int>(todo.size())));
  const int inner = std::max(1, parallel / outer);
  SweepProgress report(o.quiet, resumed);
  sim::ProcessPool pool(outer);
  pool.map(
      static_cast<int>(todo.size()),
      [&](int task, const std::function<void(double)>& progress) {
        const int index = todo[static_cast<std::size_t>(task)];
        const SweepPoint p = plan.points->point(index); // built, and decoded, by the process that runs it
        try {
          sim::Problems problems;
          const std::optional<Scenario> decoded = decode_point(o, p, problems);
          if (!decoded) throw std::runtime_error("no longer decodes: " + problems.format(o.scenario_path));
          const Scenario& scenario = *decoded;
          OutputFolder folder(plan.point_dir(index), /*replace=*/true); // the sweep decided to (re)run it
          World world(scenario);
          Scenario ran = scenario;
          Json document = p.document;
          std::vector<ReplicaOutputs> replicas;
          if (o.ci_target > 0) { // as `dcsim run --ci-target` (runner.cpp), so the outputs are the same
            replicas = run_until_ci(world, o.ci_target, o.max_replicas, inner, true, progress).replicas;
            ran.replicas = static_cast<int>(replicas.size());
            document["replicas"] = ran.replicas; // re-running scenario.json reproduces these outputs
          } else {
            replicas = run_replicas(world, inner, true, progress);
          }
          const RunSummary summary = summarize_replicas(replicas);
          write_outputs(folder.staging(), ran, replicas, summary, o.compression);
          write_scenario_document(folder.staging(), document);
          mark_point_complete(folder.staging(), p);
          sim::die_if_interrupted();
          folder.publish();
        } catch (const sim::NoProgress& e) {
          throw sim::NoProgress(fmt::format("point {} ({}): {}", index, p.label(), e.what()));
        } catch (const std::exception& e) {
          throw std::runtime_error(fmt::format("point {} ({}): {}", index, p.label(), e.what()));
        }
        return std::string();
      },
      std::ref(report));
  report.finish(todo.empty());
}

/// A short table on stdout from sweep.csv: each job's goodput at every point (and its replicas, when
/// points are replicated adaptively).
void print_goodput_table(const std::filesystem::path& sweep_csv, const std::vector<SweepAxis>& axes,
                         bool show_replicas) {
  const auto sweep = sim::read_csv_file(sweep_csv);
  const std::size_t job_col = *sweep.column("job"), metric_col = *sweep.column("metric"),
                    mean_col = *sweep.column("mean"), low_col = *sweep.column("ci95_low"),
                    high_col = *sweep.column("ci95_high"), replicas_col = *sweep.column("replicas");
  std::string header = fmt::format("{:>5}", "point");
  for (const auto& a : axes)
    header += fmt::format("  {:>{}}", a.key, std::max<std::size_t>(8, a.key.size()));
  std::cout << header
            << fmt::format("  {:<14} {:>28}{}\n", "job", "goodput_frac (95% CI)",
                           show_replicas ? "  replicas" : "");
  for (const auto& row : sweep.rows) {
    if (row[metric_col] != "goodput_frac" || row[job_col] == "cluster") continue;
    std::string line = fmt::format("{:>5}", row[0]);
    for (std::size_t a = 0; a < axes.size(); ++a)
      line += fmt::format("  {:>{}}", row[1 + a], std::max<std::size_t>(8, axes[a].key.size()));
    const double mean = sim::csv_number(row[mean_col]), low = sim::csv_number(row[low_col]),
                 high = sim::csv_number(row[high_col]);
    std::cout << line
              << fmt::format("  {:<14} {:>28}{}\n", row[job_col],
                             std::isnan(low) ? fmt::format("{:.4f}", mean)
                                             : fmt::format("{:.4f} [{:.4f}, {:.4f}]", mean, low, high),
                             show_replicas ? fmt::format("  {:>8}", row[replicas_col]) : "");
  }
}

/// invalid_points.csv: the points --skip-invalid skipped, with their values and problems ("" when none).
std::string invalid_points_text(const SweepPlan& plan) {
  sim::CsvSchema schema{INVALID_POINTS_FILE, {"point"}};
  for (const auto& a : plan.axes)
    schema.columns.push_back(a.key == "point" || a.key == "problem" ? "sweep." + a.key : a.key);
  schema.columns.push_back("problem");
  sim::CsvTable table(schema);
  for (const auto& [index, text] : plan.problems) {
    auto w = table.row();
    w << static_cast<std::int64_t>(index);
    for (const auto& v : plan.points->values(index))
      w << render_sweep_value(v);
    std::string problem = text;
    while (!problem.empty() && problem.back() == '\n')
      problem.pop_back();
    for (auto at = problem.find('\n'); at != std::string::npos; at = problem.find('\n', at))
      problem.replace(at, 1, "; ");
    w << problem;
  }
  return table.rows() > 0 ? table.text() : std::string();
}

/// Writes sweep.csv (and invalid_points.csv when points were skipped) from the points' outputs and prints
/// the table.
void assemble_sweep_csv(const SweepOptions& o, const SweepPlan& plan) {
  const std::string suffix(sim::compression_suffix(o.compression));
  const std::string text = sweep_csv_text(plan.out_dir, *plan.points, plan.valid_points());
  sim::write_file_atomically(plan.out_dir / ("sweep.csv" + suffix), sim::compress(text, o.compression));
  sim::remove_variants(plan.out_dir / "sweep.csv", o.compression); // one only: readers find it by its plain name
  const std::string invalid = invalid_points_text(plan);
  if (!invalid.empty())
    sim::write_file_atomically(plan.out_dir / (INVALID_POINTS_FILE + suffix), sim::compress(invalid, o.compression));
  sim::remove_variants(plan.out_dir / INVALID_POINTS_FILE,
                       invalid.empty() ? std::nullopt : std::optional<sim::Compression>(o.compression));
  print_goodput_table(plan.out_dir / "sweep.csv", plan.axes, o.ci_target > 0);
  std::cout << fmt::format("outputs written to {}/ (sweep.csv{}, points/)\n", plan.out_dir.string(), suffix);
}

/// --ci-target: checks every point of `points` on its summary.csv; lists those that missed the target.
/// Returns 0, or EXIT_CI_TARGET_MISSED when one did and the miss is an error (not --ci-target-soft, not
/// a shard: the --merge-only step decides).
int check_ci_target(const SweepOptions& o, const SweepPlan& plan, const std::vector<int>& points) {
  if (o.ci_target <= 0) return 0;
  const bool error = !o.ci_target_soft && o.shard_count == 0;
  int missed = 0;
  for (const int point : points) {
    const double half = summary_worst_goodput_half_width(plan.point_dir(point) / summary_schema().name);
    if (half <= o.ci_target) continue; // false while undefined (NaN)
    ++missed;
    std::cerr << fmt::format("dcsim sweep: {}: point {} ({}): --ci-target {} not met after --max-replicas {} "
                             "replicas (widest goodput_frac 95% half-width {:.6f})\n",
                             error ? "error (exit 4)" : "warning", point, plan.points->label(point), o.ci_target,
                             o.max_replicas, half);
  }
  if (missed > 0)
    std::cerr << fmt::format("dcsim sweep: --ci-target {} not met at {} of {} points{}\n", o.ci_target,
                             missed, points.size(), error ? "" : " (warning only)");
  return missed > 0 && error ? EXIT_CI_TARGET_MISSED : 0;
}

/// --merge-only: sweep.csv from complete points, or exit 2 listing every point that is not complete.
int merge_points(const SweepOptions& o, const SweepPlan& plan) {
  std::string missing;
  int incomplete = 0;
  for (const int point : plan.valid_points()) {
    const SweepPoint p = plan.points->point(point);
    std::string why;
    if (point_is_complete(plan.point_dir(p.index), p, &why)) continue;
    ++incomplete;
    missing += fmt::format("dcsim sweep: {}: point {} ({}) is not complete: {}\n",
                           plan.point_dir(p.index).string(), p.index, p.label(), why);
  }
  if (incomplete > 0) { // an earlier sweep.csv no longer matches the points: it goes
    sim::remove_variants(plan.out_dir / "sweep.csv");
    std::cerr << missing
              << fmt::format(
                     "dcsim sweep --merge-only: {} of {} points are not complete; no sweep.csv written\n",
                     incomplete, plan.valid_points().size());
    return EXIT_BAD_INPUT;
  }
  assemble_sweep_csv(o, plan);
  return check_ci_target(o, plan, plan.valid_points());
}

/// What stops the sweep from writing into OUT, or "": OUT/points or a point folder that is a link, a
/// folder holding an earlier sweep's outputs without --force (or --resume, --shard: shards share it),
/// a point folder to be rerun that holds files its manifest does not list (output_folder.hpp).
std::string sweep_folder_problem(const SweepOptions& o, const SweepPlan& plan) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path points = plan.out_dir / "points";
  if (fs::is_symlink(plan.out_dir / "points", ec))
    return fmt::format("{}: is a symbolic link: dcsim writes no output through a link", points.string());
  if (!o.resume && !o.force && !o.merge_only && o.shard_count == 0 && fs::is_directory(plan.out_dir, ec) && !fs::is_empty(plan.out_dir, ec))
    return fmt::format("{}: holds an earlier sweep's outputs (or other files): give --resume to keep its "
                       "complete points, --force to run every point again, or another --out",
                       plan.out_dir.string());
  for (const auto& e : fs::directory_iterator(points, ec))
    if (e.is_symlink(ec))
      return fmt::format("{}: is a symbolic link: dcsim writes no output through a link", e.path().string());
  return {};
}

/// The first point folder to be (re)run that holds files its manifest does not list, or "".
std::string points_problem(const SweepPlan& plan, const std::vector<int>& todo) {
  for (const int index : todo)
    if (const std::string why = replace_problem(plan.point_dir(index)); !why.empty())
      return fmt::format("{}: {}", plan.point_dir(index).string(), why);
  return {};
}

/// Runs this shard's points (all of them without --shard), then writes sweep.csv unless sharded.
int run_sweep(const SweepOptions& o, const SweepPlan& plan) {
  const int count = plan.count();
  std::vector<int> todo;
  int mine = 0;
  for (int point = 0; point < count; ++point) {
    if (!point_in_shard(point, o.shard_index, o.shard_count) || !plan.is_valid(point)) continue;
    ++mine;
    if (!o.resume || !point_is_complete(plan.point_dir(point), plan.points->point(point))) todo.push_back(point);
  }
  const int resumed = mine - static_cast<int>(todo.size());
  if (const std::string problem = points_problem(plan, todo); !problem.empty()) {
    std::cerr << "dcsim sweep: " << problem << "\n";
    return EXIT_BAD_INPUT;
  }
  const std::string shard =
      o.shard_count > 0 ? fmt::format(", shard {}/{}: {} points", o.shard_index, o.shard_count, mine) : "";
  std::cout << fmt::format("sweep {}: {} points ({} varied keys){}, {}{} to run\n", plan.name, count,
                           plan.axes.size(), shard,
                           resumed ? fmt::format("{} already complete, ", resumed) : std::string(),
                           todo.size())
            << std::flush;
  // Points are written into temporary folders and renamed into place complete (output_folder.hpp): a
  // point being (re)run keeps its earlier complete outputs until then. sweep.csv is rebuilt at the end,
  // so it goes now: a sweep killed half-way leaves no summary that disagrees with its points.
  // The sweep report (dcsim report) drew the old sweep.csv: it goes with it.
  if (!todo.empty()) sim::remove_variants(plan.out_dir / "sweep.csv"), std::filesystem::remove(plan.out_dir / "report.html");
  run_points(o, plan, todo, resumed);
  if (o.shard_count == 0) {
    assemble_sweep_csv(o, plan);
    return check_ci_target(o, plan, plan.valid_points());
  }
  std::cout << fmt::format(
      "shard {}/{}: {} points complete in {}/points/; once every shard is done, the same "
      "command with --merge-only instead of --shard writes sweep.csv\n",
      o.shard_index, o.shard_count, mine, plan.out_dir.string());
  std::vector<int> shard_points;
  for (const int point : plan.valid_points())
    if (point_in_shard(point, o.shard_index, o.shard_count)) shard_points.push_back(point);
  return check_ci_target(o, plan, shard_points);
}

} // namespace

int sweep_command(const SweepOptions& o) {
  if (o.merge_only && o.shard_count > 0) {
    std::cerr << "dcsim sweep: --merge-only assembles every point: give no --shard\n";
    return EXIT_BAD_INPUT;
  }
  SweepPlan plan;
  if (const int code = plan_sweep(o, plan); code != NOT_DONE) return code;
  try {
    if (const std::string problem = sweep_folder_problem(o, plan); !problem.empty()) {
      std::cerr << "dcsim sweep: " << problem << "\n";
      return EXIT_BAD_INPUT;
    }
    if (o.merge_only) return merge_points(o, plan);
    check_writable_folder(plan.out_dir / "points"); // before anything runs
  } catch (const OutputFolderError& e) {
    std::cerr << "dcsim sweep: " << e.what() << "\n";
    return EXIT_BAD_INPUT;
  } catch (const std::exception& e) {
    std::cerr << "dcsim sweep: failed: " << e.what() << "\n";
    return EXIT_RUNTIME_FAILURE;
  }
  try {
    return run_sweep(o, plan);
  } catch (const sim::NoProgress& e) {
    std::cerr << "\ndcsim sweep: " << e.what() << "\n";
    return EXIT_NO_PROGRESS;
  } catch (const std::exception& e) {
    sim::die_if_interrupted();
    std::cerr << "\ndcsim sweep: failed: " << e.what() << "\n";
    return EXIT_RUNTIME_FAILURE;
  }
}

} // namespace dcsim::tools
