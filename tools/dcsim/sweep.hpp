// `dcsim sweep`: run the cartesian product of varied scenario keys, each point a full run.
//
//   OUT/sweep.csv                      point,<one column per varied key>,scenario,job,metric,mean,
//                                      ci95_low,ci95_high,replicas  (each point's summary.csv rows)
//   OUT/points/point-NNN/              the point's run outputs (summary.csv ... timeseries.csv,
//                                      scenario.json) and, written last, complete.json
//   OUT/invalid_points.csv             only when --skip-invalid skipped points: point,<varied keys>,
//                                      problem (each bad point's located problems)
//
// Points come from the scenario's "sweep" block and `--vary key.path=v1,v2,...` options (a --vary of
// a key the block also varies replaces the block's values); the first varied key changes slowest.
// Every point is decoded and checked before anything runs; a bad point is an error naming it.
//
// Streaming. A plan holds the axes, the base document and, per point, one byte (valid or not) and the
// problems of an invalid point as text: a point's values and document are computed from its index when
// they are needed (SweepPoints), validated one at a time (built, decoded, checked, dropped), and built
// again, with its Scenario, by the process that runs it. A 10^6-point sweep plans in tens of MB.
//
// Completeness. A point is complete when its complete.json exists, names the same scenario document
// (the base scenario after --set, without its sweep block, with the point's values applied) and lists
// every output file with its size and FNV-1a 64 hash, each matching the file on disk (completion.hpp).
// A point is written into a temporary folder, complete.json last, and renamed into place complete
// (output_folder.hpp), so a run killed at any moment leaves each point as it was or complete. `--resume`
// skips complete points; sweep.csv is removed when points start to run and rebuilt from the points'
// summary.csv files, so it is byte-identical whether or not the sweep was resumed.
//
// Folders. A sweep into a folder that is not empty needs --resume, --force, --shard or --merge-only; a
// point folder is replaced only as `run --force` replaces one (replace_problem, output_folder.hpp: a
// file its manifest does not list is named, kept, exit 2); OUT/points or a point folder that is a
// symbolic link is refused. Every point is decoded as a run is (decode_document: trace files read), and
// checked against the memory budget (resource_budget.hpp, exit 3) with the plan itself, before anything
// runs.
//
// Shards. `--shard I/N` runs only the points with index % N == I - 1 (round robin rather than blocks:
// the first axis changes slowest, so neighbouring points share its value and often its cost; dealing
// them out spreads a costly value over every shard) into the same OUT/points/ layout, and writes no
// sweep.csv. `--merge-only` runs nothing: it checks every point is complete (as --resume does) and
// writes sweep.csv, byte-identical to a one-machine sweep since it is built from the same files; a
// missing or incomplete point is listed, exit 2, nothing written. Each point folder is written by one
// shard only, so shards on several machines may share OUT over a network file system.
//
// Adaptive replication. `--ci-target X` replicates each point as `dcsim run --ci-target` does
// (run_until_ci: batches until every job's goodput_frac 95% half-width is <= X, or --max-replicas), so a
// point's outputs are byte-identical to `dcsim run --ci-target X` of its scenario. sweep.csv's `replicas`
// column holds each point's count (no new column: a sharded sweep merges as before). The target is
// checked on the points' summary.csv files at the end: a point that missed it is listed and the exit code
// is 4 (--ci-target-soft: a warning and 0); a shard only warns, its --merge-only step decides the exit code.
#pragma once

#include "models/scenario.hpp"
#include "sim/compressed_file.hpp"
#include "tools/dcsim/completion.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::tools {

struct SweepOptions {
  std::string scenario_path;
  std::vector<std::string> vary;      ///< "key.path=v1,v2,..."
  std::vector<std::string> zip;       ///< "key.path=v1,v2,...", varied together (SweepAxis::zipped)
  std::vector<std::string> overrides; ///< --set, applied to the base scenario first
  std::string out_dir;                ///< empty: out/<scenario name>-sweep
  int parallel = 0;                   ///< processes; 0: number of CPUs
  bool resume = false;
  bool force = false;               ///< run into a folder holding an earlier sweep's outputs
  double memory_budget_gb = 0;      ///< > 0: the memory budget (resource_budget.hpp); 0: the default
  bool quiet = false;
  bool allow_outside_files = false; ///< trace files may lie outside the scenario's folder
  int shard_index = 0;              ///< --shard I/N: I (1-based); 0: every point
  int shard_count = 0;              ///< --shard I/N: N; 0: not sharded (sweep.csv written at the end)
  bool merge_only = false;          ///< run nothing: sweep.csv from the complete points, else exit 2
  bool skip_invalid = false;        ///< report bad points and run the rest (exit 2 only when none is valid)
  double ci_target = 0;             ///< > 0: points replicated adaptively (run_until_ci) to this half-width
  int max_replicas = 200;           ///< cap on a point's replicas with ci_target
  bool ci_target_soft = false;      ///< a point missing ci_target is a warning, not exit 4
  sim::Compression compression = sim::Compression::NONE; ///< --compress: the CSV files as .csv.gz / .csv.zst
};

/// Parses `I/N` (1 <= I <= N). Returns an error message, or "" on success.
std::string parse_shard(std::string_view text, int& index, int& count);
/// Whether point `point` belongs to shard `index` of `count` (round robin: point % count == index - 1);
/// every point when count <= 1.
bool point_in_shard(int point, int index, int count);

/// Parses `key.path=v1,v2,...`: values are separated by commas outside brackets, braces and quotes,
/// each read as JSON when it parses, otherwise as a string. Returns an error message, or "" on success.
std::string parse_vary(std::string_view text, SweepAxis& axis);

struct SweepPoint {
  int index = 0;
  std::vector<sim::Json> values; ///< one per axis
  sim::Json document;            ///< the scenario document of this point
  std::string label() const;     ///< "operations.spare_racks=2, hardware.rack.spare_gpus=8"
  std::vector<std::string> keys; ///< axis keys, for label()
  std::string apply_error;       ///< non-empty when a value could not be applied (e.g. index out of range)
  /// How the point is replicated beyond its scenario: null, or {"ci_target": X, "max_replicas": N} with
  /// --ci-target. Recorded in complete.json, so that --resume re-runs a point replicated otherwise.
  sim::Json replication;
};

/// The product's dimensions: each unzipped axis alone, the zipped axes together where the first is.
std::vector<std::vector<std::size_t>> sweep_dimensions(const std::vector<SweepAxis>& axes);
/// "" when every zipped axis lists as many values as the first, else the error.
std::string zip_length_problem(const std::vector<SweepAxis>& axes);

/// The most points a sweep may have (checked before any point is built). Points are streamed, so the
/// plan keeps a few bytes per point (resource_budget.hpp); point folders are named with up to 6 digits.
inline constexpr std::size_t MAX_SWEEP_POINTS = 1000000;
/// "" when the product of the axes' value counts is at most MAX_SWEEP_POINTS, else the error.
std::string sweep_size_problem(const std::vector<SweepAxis>& axes);

/// The points of a sweep over `axes`, each built from its index on demand: first axis slowest, zipped axes
/// together (sweep_dimensions). `base` must not hold a "sweep" block; the axes must pass
/// sweep_size_problem (else std::length_error) and zip_length_problem (else std::invalid_argument).
class SweepPoints {
public:
  SweepPoints(sim::Json base, std::vector<SweepAxis> axes, sim::Json replication = sim::Json());
  int size() const { return count_; }
  const std::vector<SweepAxis>& axes() const { return axes_; }
  std::vector<sim::Json> values(int index) const; ///< one per axis
  std::string label(int index) const;            ///< as SweepPoint::label()
  SweepPoint point(int index) const;             ///< values, document (base with the values applied)

private:
  sim::Json base_;
  std::vector<SweepAxis> axes_;
  std::vector<std::vector<std::size_t>> dims_;
  std::vector<std::string> keys_;
  sim::Json replication_;
  int count_ = 0;
};

/// Every point of SweepPoints(base, axes), in order (for small sweeps and tests).
std::vector<SweepPoint> expand_points(const sim::Json& base, const std::vector<SweepAxis>& axes);

/// A value as shown in sweep.csv and labels: strings as they are, anything else as compact JSON.
std::string render_sweep_value(const sim::Json& value);

inline constexpr const char* INVALID_POINTS_FILE = "invalid_points.csv";
inline constexpr const char* POINT_COMPLETE_FILE = COMPLETE_FILE; ///< the point's completion marker
std::string point_dir_name(int index, int points); ///< "point-007", at least 3 digits
/// Records the point as complete (call after every output file is written).
void mark_point_complete(const std::filesystem::path& dir, const SweepPoint& point);
/// The widest 95% half-width of a job's goodput_frac (rows other than `cluster`) in a summary.csv file;
/// NaN when undefined (fewer than 2 replicas).
double summary_worst_goodput_half_width(const std::filesystem::path& summary_csv);

/// True when `dir` holds a complete run of `point`; otherwise `why` says what is missing or different.
bool point_is_complete(const std::filesystem::path& dir, const SweepPoint& point, std::string* why = nullptr);

/// Concatenates the summary.csv files of the points `indices` of `points` into sweep.csv text (the
/// folder names' width is set by points.size(); --skip-invalid passes fewer indices than points).
std::string sweep_csv_text(const std::filesystem::path& out_dir, const SweepPoints& points,
                           const std::vector<int>& indices);

/// `dcsim sweep`: returns the process exit code.
int sweep_command(const SweepOptions& options);

} // namespace dcsim::tools
