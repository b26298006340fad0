// dcsim: the command line (composition root). See README.md for every command.
#include "sim/interrupt.hpp"
#include "sim/temp_dir.hpp"
#include "tools/dcsim/compare.hpp"
#include "tools/dcsim/cost.hpp"
#include "tools/dcsim/describe.hpp"
#include "tools/dcsim/huge_pages.hpp"
#include "tools/dcsim/provenance.hpp"
#include "tools/dcsim/report.hpp"
#include "tools/dcsim/resolved_scenario.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/schema.hpp"
#include "tools/dcsim/step_report.hpp"
#include "tools/dcsim/sweep.hpp"
#include "tools/dcsim/topology.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace {

int validate_command(const std::string& path, const std::vector<std::string>& overrides,
                     bool allow_outside_files) {
  const auto loaded = dcsim::tools::load_scenario(path, overrides, {allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  const auto& s = *loaded.scenario;
  const long long gpus = static_cast<long long>(s.cluster.racks) * s.hardware.rack.gpus_per_rack();
  std::string fabric = "no fabric";
  if (s.fabric)
    fabric = fmt::format("{} fabric of {} plane(s) x {} Gb/s, {} tier(s)",
                         dcsim::fabric::fabric_kind_name(s.fabric->kind), s.fabric->planes,
                         s.fabric->port_gbps, s.fabric->tiers);
  std::cout << fmt::format(
      "{}: ok: scenario {}, {} racks ({}), {} GPUs, {}, {} failure modes, {} jobs, {} replicas of {} h\n",
      path, s.name, s.cluster.racks, dcsim::hardware::rack_kind_name(s.hardware.rack.kind), gpus, fabric,
      s.failures.modes.size(), s.jobs.size(), s.replicas, s.duration_h);
  return 0;
}

/// The command line: every subcommand and the storage its options fill.
struct Cli {
  CLI::App app{"dcsim: discrete-event simulator of AI factories (goodput and MFU of GPU clusters)"};
  std::string exit_codes;
  CLI::App *run_cmd = nullptr, *sweep_cmd = nullptr, *compare_cmd = nullptr, *report_cmd = nullptr,
           *validate_cmd = nullptr, *scenario_cmd = nullptr, *step_cmd = nullptr, *topology_cmd = nullptr,
           *cost_cmd = nullptr, *describe_cmd = nullptr, *schema_cmd = nullptr;
  dcsim::tools::RunOptions run;
  int replicas = 0;
  long long seed = -1;
  dcsim::tools::SweepOptions sweep;
  int sweep_replicas = 0;
  long long sweep_seed = -1;
  std::string sweep_shard;
  std::string run_compress = "none", sweep_compress = "none";
  dcsim::tools::CompareOptions compare;
  std::string report_dir, report_output;
  std::vector<std::string> report_metrics, report_pareto;
  std::string validate_path;
  std::vector<std::string> validate_overrides;
  bool validate_outside = false;
  std::string resolved_path;
  std::vector<std::string> resolved_overrides;
  bool resolved_outside = false;
  std::string step_path;
  std::vector<std::string> step_overrides;
  bool step_json = false;
  bool step_outside = false;
  dcsim::tools::TopologyOptions topology;
  dcsim::tools::CostOptions cost_options;
  std::string area;
  bool describe_markdown = false;
};

const char* const OUTSIDE_HELP = "let trace files named by the scenario lie outside its folder";
const char* const MEMORY_BUDGET_HELP =
    "memory a run (or a sweep's plan) may need, GB, estimated before it starts (default: half this machine's "
    "memory or address-space limit); over it: exit 3 naming the key";

const char* const COMPRESS_HELP =
    "none, gzip or zstd: write the CSV outputs as NAME.csv, NAME.csv.gz or NAME.csv.zst (deterministic; "
    "every dcsim command and pandas read them as they are)";

/// --compress's value, or exit 2 naming the option and the value.
bool parse_compress(const char* command, const std::string& text, dcsim::sim::Compression& out) {
  if (const auto c = dcsim::sim::parse_compression(text)) {
    out = *c;
    return true;
  }
  std::cerr << fmt::format("dcsim {}: --compress: expected none, gzip or zstd (got \"{}\")\n", command, text);
  return false;
}

void add_run(Cli& c) {
  c.run_cmd = c.app.add_subcommand("run", "run a scenario's replicas and write CSV outputs");
  c.run_cmd->footer(c.exit_codes);
  c.run_cmd->add_option("scenario", c.run.scenario_path, "scenario JSON file")->required();
  c.run_cmd->add_option("--out", c.run.out_dir, "output directory (default out/<scenario name>)");
  c.run_cmd->add_option("--replicas", c.replicas, "override the scenario's replicas")
      ->check(CLI::PositiveNumber);
  c.run_cmd->add_option("--seed", c.seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  c.run_cmd->add_option("-j,--jobs", c.run.parallel, "replicas run in parallel processes (default: CPUs)")
      ->check(CLI::PositiveNumber);
  c.run_cmd->add_option("--set", c.run.overrides, "override a scenario key: key.path=value (repeatable)");
  c.run_cmd->add_flag("-q,--quiet", c.run.quiet, "no progress on stderr");
  c.run_cmd->add_flag("--allow-outside-files", c.run.allow_outside_files, OUTSIDE_HELP);
  c.run_cmd
      ->add_option(
          "--ci-target", c.run.ci_target,
          "adaptive replication: add replicas until every job's goodput_frac 95% CI half-width is <= this")
      ->check(CLI::PositiveNumber);
  c.run_cmd
      ->add_option("--max-replicas", c.run.max_replicas, "cap on replicas with --ci-target (default 200)")
      ->check(CLI::PositiveNumber);
  c.run_cmd->add_flag("--ci-target-soft", c.run.ci_target_soft,
                      "an unmet --ci-target warns and exits 0 (default: exit 4)");
  c.run_cmd->add_option("--memory-budget-gb", c.run.memory_budget_gb, MEMORY_BUDGET_HELP)->check(CLI::PositiveNumber);
  c.run_cmd->add_option("--compress", c.run_compress, COMPRESS_HELP);
  c.run_cmd->add_flag("--force", c.run.force,
                      "replace an earlier run's outputs in the output folder (the whole folder)");
}

void add_sweep(Cli& c) {
  c.sweep_cmd =
      c.app.add_subcommand("sweep", "run the cartesian product of varied keys, each point a full run");
  c.sweep_cmd->footer(c.exit_codes);
  c.sweep_cmd->add_option("scenario", c.sweep.scenario_path, "scenario JSON file")->required();
  c.sweep_cmd->add_option("--vary", c.sweep.vary,
                          "a varied key and its values: key.path=v1,v2,... (repeatable)");
  c.sweep_cmd->add_option(
      "--zip", c.sweep.zip,
      "keys varied together: key.path=v1,v2,... (repeatable; each as many values, the i-th "
      "point of the group takes every key's i-th value)");
  c.sweep_cmd->add_option("--out", c.sweep.out_dir, "output directory (default out/<scenario name>-sweep)");
  c.sweep_cmd->add_option("--replicas", c.sweep_replicas, "override the scenario's replicas")
      ->check(CLI::PositiveNumber);
  c.sweep_cmd->add_option("--seed", c.sweep_seed, "override the scenario's seed")
      ->check(CLI::NonNegativeNumber);
  c.sweep_cmd->add_option("-j,--jobs", c.sweep.parallel, "processes in parallel (default: CPUs)")
      ->check(CLI::PositiveNumber);
  c.sweep_cmd->add_option("--set", c.sweep.overrides,
                          "override a key of every point: key.path=value (repeatable)");
  c.sweep_cmd->add_option("--memory-budget-gb", c.sweep.memory_budget_gb, MEMORY_BUDGET_HELP)
      ->check(CLI::PositiveNumber);
  c.sweep_cmd->add_option("--compress", c.sweep_compress, COMPRESS_HELP);
  c.sweep_cmd->add_flag("--force", c.sweep.force,
                        "run into a folder holding an earlier sweep's outputs (its points are replaced, "
                        "files dcsim did not write are never deleted)");
  c.sweep_cmd->add_flag("--resume", c.sweep.resume,
                        "skip points whose outputs are complete (see complete.json)");
  c.sweep_cmd->add_flag("-q,--quiet", c.sweep.quiet, "no progress on stderr");
  c.sweep_cmd->add_flag("--allow-outside-files", c.sweep.allow_outside_files, OUTSIDE_HELP);
  c.sweep_cmd->add_option("--shard", c.sweep_shard,
                          "run only the points with index % N == I-1 (I/N, 1-based), write no sweep.csv");
  c.sweep_cmd->add_flag("--skip-invalid", c.sweep.skip_invalid,
                        "report the invalid points and run the others (sweep.csv lists only valid points)");
  c.sweep_cmd->add_flag(
      "--merge-only", c.sweep.merge_only,
      "run nothing: write sweep.csv from the complete points (exit 2 listing any not complete)");
  c.sweep_cmd
      ->add_option("--ci-target", c.sweep.ci_target,
                   "adaptive replication of each point, as run --ci-target: add replicas until every job's "
                   "goodput_frac 95% CI half-width is <= this")
      ->check(CLI::PositiveNumber);
  c.sweep_cmd
      ->add_option("--max-replicas", c.sweep.max_replicas,
                   "cap on a point's replicas with --ci-target (default 200)")
      ->check(CLI::PositiveNumber);
  c.sweep_cmd->add_flag("--ci-target-soft", c.sweep.ci_target_soft,
                        "a point missing --ci-target warns and the sweep exits 0 (default: exit 4)");
}

void add_compare(Cli& c) {
  c.compare_cmd = c.app.add_subcommand(
      "compare",
      "compare two runs' metrics; exit 5 when the candidate is significantly worse beyond the tolerance");
  c.compare_cmd->add_option("baseline", c.compare.baseline_dir, "baseline output directory")->required();
  c.compare_cmd->add_option("candidate", c.compare.candidate_dir, "candidate output directory")->required();
  c.compare_cmd->add_option("--tolerance-frac", c.compare.tolerance_frac,
                            "allowed change as a fraction of the baseline mean (default 0.01)");
  c.compare_cmd->add_flag("--json", c.compare.json, "print the comparison as JSON");
  c.compare_cmd->add_option("--report", c.compare.report_path,
                            "also write the comparison as a self-contained HTML page (table and chart)");
  c.compare_cmd->add_option("--junit", c.compare.junit_path,
                            "also write the result as JUnit XML: one testcase per metric that can fail, a "
                            "failure per regression (for CI test reports)");
  c.compare_cmd->add_option("--test", c.compare.test,
                            "auto (paired when both runs share their seed, else Welch), welch or paired");
  c.compare_cmd->add_option(
      "--metric", c.compare.gates,
      "gate: only these metrics can fail, each with its tolerance: NAME=0.005 (absolute) or "
      "NAME=1% (of the baseline mean) (repeatable); loss_share_frac:CAUSE=TOL gates a cause's share of the "
      "GPU-time each job held (losses.csv), a rise being worse");
  c.compare_cmd->add_flag(
      "--exact", c.compare.exact,
      "require byte-identical outputs (every listed file but run.json; a compressed file by its content); "
      "exit 5 on a difference");
}

void add_inspection(Cli& c) { // report, validate, scenario, step, topology, cost
  c.report_cmd = c.app.add_subcommand("report", "write a self-contained report.html from a run's or a sweep's outputs");
  c.report_cmd->add_option("out_dir", c.report_dir, "a run's or a sweep's output directory")->required();
  c.report_cmd->add_option("-o,--output", c.report_output, "where to write (default OUT_DIR/report.html)");
  c.report_cmd->add_option("--metric", c.report_metrics,
                           "a sweep's metric to plot against each varied key (repeatable; default goodput_frac)");
  c.report_cmd->add_option("--pareto", c.report_pareto,
                           "a sweep's Pareto front over two metrics X,Y (each NAME, JOB:NAME or gpus; "
                           "repeatable; default gpus,goodput_frac and cost_total_usd,goodput_frac)");

  c.validate_cmd = c.app.add_subcommand("validate", "check a scenario and report every problem");
  c.validate_cmd->add_option("scenario", c.validate_path, "scenario JSON file")->required();
  c.validate_cmd->add_option("--set", c.validate_overrides,
                             "override a scenario key: key.path=value (repeatable)");
  c.validate_cmd->add_flag("--allow-outside-files", c.validate_outside, OUTSIDE_HELP);

  c.scenario_cmd = c.app.add_subcommand(
      "scenario",
      "print the scenario as the loader resolves it, as plain JSON: comments stripped, --set applied, "
      "constant defaults filled, trace files inlined (a file `dcsim run` reads with the same results)");
  c.scenario_cmd->add_option("scenario", c.resolved_path, "scenario JSON file")->required();
  c.scenario_cmd->add_option("--set", c.resolved_overrides,
                             "override a scenario key: key.path=value (repeatable)");
  c.scenario_cmd->add_flag("--allow-outside-files", c.resolved_outside, OUTSIDE_HELP);

  c.step_cmd =
      c.app.add_subcommand("step", "each job's step time breakdown, TFLOP/s, MFU and memory per GPU");
  c.step_cmd->add_option("scenario", c.step_path, "scenario JSON file")->required();
  c.step_cmd->add_option("--set", c.step_overrides, "override a scenario key: key.path=value (repeatable)");
  c.step_cmd->add_flag("--json", c.step_json, "one JSON object per job and line");
  c.step_cmd->add_flag("--allow-outside-files", c.step_outside, OUTSIDE_HELP);
  c.topology_cmd = c.app.add_subcommand("topology", "size the scenario's scale-out fabric (switches, links, "
                                                    "optics, bisection, diameter, power)");
  c.topology_cmd->add_option("scenario", c.topology.scenario_path, "scenario JSON file")->required();
  c.topology_cmd->add_flag("--json", c.topology.json, "print one JSON object instead of text");
  c.topology_cmd->add_option(
      "--dot", c.topology.dot_path,
      "write a Graphviz view to FILE (the whole graph up to 300 vertices, else plane 0 "
      "reduced)");
  c.topology_cmd->add_option("--set", c.topology.overrides,
                             "override a scenario key: key.path=value (repeatable)");
  c.topology_cmd->add_flag("--allow-outside-files", c.topology.allow_outside_files, OUTSIDE_HELP);

  c.cost_cmd = c.app.add_subcommand("cost", "the design's priced bill of materials and fixed costs per hour "
                                            "(the /cost prices, else the sourced defaults: docs/cost.md)");
  c.cost_cmd->add_option("scenario", c.cost_options.scenario_path, "scenario JSON file")->required();
  c.cost_cmd->add_flag("--json", c.cost_options.json, "print one JSON object instead of text");
  c.cost_cmd->add_option("--set", c.cost_options.overrides,
                         "override a scenario key: key.path=value (repeatable)");
  c.cost_cmd->add_flag("--allow-outside-files", c.cost_options.allow_outside_files, OUTSIDE_HELP);
}

void add_reference(Cli& c) { // describe, schema
  c.describe_cmd = c.app.add_subcommand(
      "describe",
      "list every scenario key: type, unit, default, meaning (or every output metric: describe metrics)");
  c.describe_cmd->add_option(
      "area", c.area,
      "only this area (scenario, hardware, cluster, fabric, failures, operations, jobs, output, cost, "
      "sweep), or "
      "metrics: every output metric with its unit, scope, better direction and meaning");
  c.describe_cmd->add_flag(
      "--markdown", c.describe_markdown,
      "print the whole reference as Markdown (docs/scenario-reference.md; with metrics: docs/metrics.md)");

  c.schema_cmd = c.app.add_subcommand("schema", "print a JSON Schema (draft 2020-12) of the scenario format");
}

/// run and sweep; -1 when neither was asked for.
int dispatch_simulations(Cli& c, int argc, char** argv) {
  if (*c.run_cmd ||
      *c.sweep_cmd) // TMPDIR folders of dcsim processes killed earlier (SIGKILL cannot clean up)
    dcsim::sim::reclaim_stale_dirs(dcsim::sim::temp_root(), "dcsim-", dcsim::sim::RECLAIM_AFTER_S);
  if (*c.run_cmd) {
    c.run.command_line.assign(argv, argv + argc);
    if (c.replicas > 0) c.run.overrides.push_back(fmt::format("replicas={}", c.replicas));
    if (c.seed >= 0) c.run.overrides.push_back(fmt::format("seed={}", c.seed));
    if (!parse_compress("run", c.run_compress, c.run.compression)) return 2;
    return dcsim::tools::run_command(c.run);
  }
  if (*c.sweep_cmd) {
    if (c.sweep_replicas > 0) c.sweep.overrides.push_back(fmt::format("replicas={}", c.sweep_replicas));
    if (c.sweep_seed >= 0) c.sweep.overrides.push_back(fmt::format("seed={}", c.sweep_seed));
    if (!parse_compress("sweep", c.sweep_compress, c.sweep.compression)) return 2;
    if (!c.sweep_shard.empty()) {
      if (const std::string error =
              dcsim::tools::parse_shard(c.sweep_shard, c.sweep.shard_index, c.sweep.shard_count);
          !error.empty()) {
        std::cerr << "dcsim sweep: " << error << "\n";
        return 2;
      }
    }
    return dcsim::tools::sweep_command(c.sweep);
  }
  return -1;
}

int dispatch_others(Cli& c) {
  if (*c.compare_cmd) return dcsim::tools::compare_command(c.compare);
  if (*c.report_cmd) return dcsim::tools::report_command(c.report_dir, c.report_output, c.report_metrics, c.report_pareto);
  if (*c.validate_cmd) return validate_command(c.validate_path, c.validate_overrides, c.validate_outside);
  if (*c.scenario_cmd)
    return dcsim::tools::scenario_command(c.resolved_path, c.resolved_overrides, c.resolved_outside);
  if (*c.step_cmd)
    return dcsim::tools::step_command(c.step_path, c.step_overrides, c.step_json, c.step_outside);
  if (*c.topology_cmd) return dcsim::tools::topology_command(c.topology);
  if (*c.cost_cmd) return dcsim::tools::cost_command(c.cost_options);
  if (*c.schema_cmd) {
    std::cout << dcsim::tools::scenario_json_schema().dump(2) << "\n";
    return 0;
  }
  if (*c.describe_cmd && c.area == dcsim::tools::METRICS_AREA) {
    std::cout << (c.describe_markdown ? dcsim::tools::metrics_markdown() : dcsim::tools::describe_metrics());
    return 0;
  }
  if (*c.describe_cmd && c.describe_markdown) {
    if (!c.area.empty()) {
      std::cerr << "dcsim describe: --markdown prints every area; give no AREA (or the area metrics)\n";
      return 2;
    }
    std::cout << dcsim::tools::scenario_reference_markdown();
    return 0;
  }
  if (*c.describe_cmd) {
    std::string out;
    const bool ok = dcsim::tools::describe_keys(c.area, out);
    (ok ? std::cout : std::cerr) << out;
    return ok ? 0 : 2;
  }
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  dcsim::tools::use_transparent_huge_pages(argv);
  Cli c;
  c.app.require_subcommand(1);
  c.app.set_version_flag(
      "--version", fmt::format("dcsim {} ({})", dcsim::tools::DCSIM_VERSION, dcsim::tools::build_commit()));
  c.exit_codes =
      "Exit codes: 0 ok; 1 runtime failure; 2 bad input or usage; 3 the run cannot progress (events pile up\n"
      "while simulated time stands still: absurd failure rates or durations); 4 run --ci-target not met\n"
      "within --max-replicas (outputs written; sweep: at any point); 5 compare: a regression (--exact: a\n"
      "difference).";
  c.app.footer(c.exit_codes);
  add_run(c);
  add_sweep(c);
  add_compare(c);
  add_inspection(c);
  add_reference(c);
  try {
    c.app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = c.app.exit(e);
    return code == 0 ? 0 : 2;
  }
  dcsim::sim::install_interrupt_handlers();
  try {
    if (const int code = dispatch_simulations(c, argc, argv); code >= 0) return code;
    return dispatch_others(c);
  } catch (const std::bad_alloc&) { // wherever it came from: a clear message, never an abort
    dcsim::sim::die_if_interrupted();
    std::cerr << "dcsim: out of memory (std::bad_alloc): the scenario or sweep needs more memory than this "
                 "process may use (see --memory-budget-gb and README's Limits); nothing was written\n";
    return dcsim::tools::EXIT_NO_PROGRESS;
  }
}
