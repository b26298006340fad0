// dcsim: the command line (composition root). See README.md for every command.
#include "sim/interrupt.hpp"
#include "sim/temp_dir.hpp"
#include "tools/dcsim/compare.hpp"
#include "tools/dcsim/cost.hpp"
#include "tools/dcsim/provenance.hpp"
#include "tools/dcsim/describe.hpp"
#include "tools/dcsim/huge_pages.hpp"
#include "tools/dcsim/report.hpp"
#include "tools/dcsim/resolved_scenario.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/schema.hpp"
#include "tools/dcsim/step_report.hpp"
#include "tools/dcsim/topology.hpp"
#include "tools/dcsim/sweep.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

namespace {

int validate_command(const std::string& path, const std::vector<std::string>& overrides, bool allow_outside_files) {
  const auto loaded = dcsim::tools::load_scenario(path, overrides, {allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  const auto& s = *loaded.scenario;
  const long long gpus = static_cast<long long>(s.cluster.racks) * s.hardware.rack.gpus_per_rack();
  std::string fabric = "no fabric";
  if (s.fabric)
    fabric = fmt::format("{} fabric of {} plane(s) x {} Gb/s, {} tier(s)", dcsim::fabric::fabric_kind_name(s.fabric->kind),
                         s.fabric->planes, s.fabric->port_gbps, s.fabric->tiers);
  std::cout << fmt::format("{}: ok: scenario {}, {} racks ({}), {} GPUs, {}, {} failure modes, {} jobs, {} replicas of {} h\n",
                           path, s.name, s.cluster.racks, dcsim::hardware::rack_kind_name(s.hardware.rack.kind), gpus,
                           fabric, s.failures.modes.size(), s.jobs.size(), s.replicas, s.duration_h);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  dcsim::tools::use_transparent_huge_pages(argv);
  CLI::App app{"dcsim: discrete-event simulator of AI factories (goodput and MFU of GPU clusters)"};
  const char* const OUTSIDE_HELP = "let trace files named by the scenario lie outside its folder";
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("dcsim {} ({})", dcsim::tools::DCSIM_VERSION,
                                                dcsim::tools::build_commit()));
  const std::string exit_codes =
      "Exit codes: 0 ok; 1 runtime failure; 2 bad input or usage; 3 the run cannot progress (events pile up\n"
      "while simulated time stands still: absurd failure rates or durations); 4 run --ci-target not met\n"
      "within --max-replicas (outputs written). compare: 1 also means a regression (--exact: a difference).";
  app.footer(exit_codes);

  dcsim::tools::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "run a scenario's replicas and write CSV outputs");
  run_cmd->footer(exit_codes);
  run_cmd->add_option("scenario", run.scenario_path, "scenario JSON file")->required();
  run_cmd->add_option("--out", run.out_dir, "output directory (default out/<scenario name>)");
  int replicas = 0;
  long long seed = -1;
  run_cmd->add_option("--replicas", replicas, "override the scenario's replicas")->check(CLI::PositiveNumber);
  run_cmd->add_option("--seed", seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  run_cmd->add_option("-j,--jobs", run.parallel, "replicas run in parallel processes (default: CPUs)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--set", run.overrides, "override a scenario key: key.path=value (repeatable)");
  run_cmd->add_flag("-q,--quiet", run.quiet, "no progress on stderr");
  run_cmd->add_flag("--allow-outside-files", run.allow_outside_files, OUTSIDE_HELP);
  run_cmd
      ->add_option("--ci-target", run.ci_target,
                   "adaptive replication: add replicas until every job's goodput_frac 95% CI half-width is <= this")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--max-replicas", run.max_replicas, "cap on replicas with --ci-target (default 200)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("--ci-target-soft", run.ci_target_soft, "an unmet --ci-target warns and exits 0 (default: exit 4)");
  run_cmd->add_flag("--force", run.force, "replace an earlier run's outputs in the output folder (the whole folder)");

  dcsim::tools::SweepOptions sweep;
  auto* sweep_cmd = app.add_subcommand("sweep", "run the cartesian product of varied keys, each point a full run");
  sweep_cmd->footer(exit_codes);
  sweep_cmd->add_option("scenario", sweep.scenario_path, "scenario JSON file")->required();
  sweep_cmd->add_option("--vary", sweep.vary, "a varied key and its values: key.path=v1,v2,... (repeatable)");
  sweep_cmd->add_option("--zip", sweep.zip,
                        "keys varied together: key.path=v1,v2,... (repeatable; each as many values, the i-th "
                        "point of the group takes every key's i-th value)");
  sweep_cmd->add_option("--out", sweep.out_dir, "output directory (default out/<scenario name>-sweep)");
  int sweep_replicas = 0;
  long long sweep_seed = -1;
  sweep_cmd->add_option("--replicas", sweep_replicas, "override the scenario's replicas")->check(CLI::PositiveNumber);
  sweep_cmd->add_option("--seed", sweep_seed, "override the scenario's seed")->check(CLI::NonNegativeNumber);
  sweep_cmd->add_option("-j,--jobs", sweep.parallel, "processes in parallel (default: CPUs)")->check(CLI::PositiveNumber);
  sweep_cmd->add_option("--set", sweep.overrides, "override a key of every point: key.path=value (repeatable)");
  sweep_cmd->add_flag("--resume", sweep.resume, "skip points whose outputs are complete (see complete.json)");
  sweep_cmd->add_flag("-q,--quiet", sweep.quiet, "no progress on stderr");
  sweep_cmd->add_flag("--allow-outside-files", sweep.allow_outside_files, OUTSIDE_HELP);
  std::string sweep_shard;
  sweep_cmd->add_option("--shard", sweep_shard,
                        "run only the points with index % N == I-1 (I/N, 1-based), write no sweep.csv");
  sweep_cmd->add_flag("--skip-invalid", sweep.skip_invalid,
                      "report the invalid points and run the others (sweep.csv lists only valid points)");
  sweep_cmd->add_flag("--merge-only", sweep.merge_only,
                      "run nothing: write sweep.csv from the complete points (exit 2 listing any not complete)");

  dcsim::tools::CompareOptions compare;
  auto* compare_cmd = app.add_subcommand(
      "compare", "compare two runs' metrics; exit 1 when the candidate is significantly worse beyond the tolerance");
  compare_cmd->add_option("baseline", compare.baseline_dir, "baseline output directory")->required();
  compare_cmd->add_option("candidate", compare.candidate_dir, "candidate output directory")->required();
  compare_cmd->add_option("--tolerance-frac", compare.tolerance_frac,
                          "allowed change as a fraction of the baseline mean (default 0.01)");
  compare_cmd->add_flag("--json", compare.json, "print the comparison as JSON");
  compare_cmd->add_option("--test", compare.test,
                          "auto (paired when both runs share their seed, else Welch), welch or paired");
  compare_cmd->add_option("--metric", compare.gates,
                          "gate: only these metrics can fail, each with its tolerance: NAME=0.005 (absolute) or "
                          "NAME=1% (of the baseline mean) (repeatable)");
  compare_cmd->add_flag("--exact", compare.exact,
                        "require byte-identical outputs (every listed file but run.json); exit 1 on a difference");

  std::string report_dir, report_output;
  auto* report_cmd = app.add_subcommand("report", "write a self-contained report.html from a run's outputs");
  report_cmd->add_option("out_dir", report_dir, "a run's output directory")->required();
  report_cmd->add_option("-o,--output", report_output, "where to write (default OUT_DIR/report.html)");

  std::string validate_path;
  std::vector<std::string> validate_overrides;
  auto* validate_cmd = app.add_subcommand("validate", "check a scenario and report every problem");
  validate_cmd->add_option("scenario", validate_path, "scenario JSON file")->required();
  validate_cmd->add_option("--set", validate_overrides, "override a scenario key: key.path=value (repeatable)");
  bool validate_outside = false;
  validate_cmd->add_flag("--allow-outside-files", validate_outside, OUTSIDE_HELP);

  std::string resolved_path;
  std::vector<std::string> resolved_overrides;
  bool resolved_outside = false;
  auto* scenario_cmd = app.add_subcommand(
      "scenario", "print the scenario as the loader resolves it, as plain JSON: comments stripped, --set applied, "
                  "constant defaults filled, trace files inlined (a file `dcsim run` reads with the same results)");
  scenario_cmd->add_option("scenario", resolved_path, "scenario JSON file")->required();
  scenario_cmd->add_option("--set", resolved_overrides, "override a scenario key: key.path=value (repeatable)");
  scenario_cmd->add_flag("--allow-outside-files", resolved_outside, OUTSIDE_HELP);

  std::string step_path;
  std::vector<std::string> step_overrides;
  bool step_json = false;
  auto* step_cmd = app.add_subcommand("step", "each job's step time breakdown, TFLOP/s, MFU and memory per GPU");
  step_cmd->add_option("scenario", step_path, "scenario JSON file")->required();
  step_cmd->add_option("--set", step_overrides, "override a scenario key: key.path=value (repeatable)");
  step_cmd->add_flag("--json", step_json, "one JSON object per job and line");
  bool step_outside = false;
  step_cmd->add_flag("--allow-outside-files", step_outside, OUTSIDE_HELP);
  dcsim::tools::TopologyOptions topology;
  auto* topology_cmd = app.add_subcommand("topology", "size the scenario's scale-out fabric (switches, links, "
                                                      "optics, bisection, diameter, power)");
  topology_cmd->add_option("scenario", topology.scenario_path, "scenario JSON file")->required();
  topology_cmd->add_flag("--json", topology.json, "print one JSON object instead of text");
  topology_cmd->add_option("--dot", topology.dot_path,
                           "write a Graphviz view to FILE (the whole graph up to 300 vertices, else plane 0 "
                           "reduced)");
  topology_cmd->add_option("--set", topology.overrides, "override a scenario key: key.path=value (repeatable)");
  topology_cmd->add_flag("--allow-outside-files", topology.allow_outside_files, OUTSIDE_HELP);

  dcsim::tools::CostOptions cost_options;
  auto* cost_cmd = app.add_subcommand("cost", "the design's priced bill of materials and fixed costs per hour "
                                              "(the /cost prices, else the sourced defaults: docs/cost.md)");
  cost_cmd->add_option("scenario", cost_options.scenario_path, "scenario JSON file")->required();
  cost_cmd->add_flag("--json", cost_options.json, "print one JSON object instead of text");
  cost_cmd->add_option("--set", cost_options.overrides, "override a scenario key: key.path=value (repeatable)");
  cost_cmd->add_flag("--allow-outside-files", cost_options.allow_outside_files, OUTSIDE_HELP);

  std::string area;
  auto* describe_cmd = app.add_subcommand(
      "describe", "list every scenario key: type, unit, default, meaning (or every output metric: describe metrics)");
  describe_cmd->add_option("area", area,
                           "only this area (scenario, hardware, cluster, fabric, failures, operations, jobs, output, cost, sweep), or "
                           "metrics: every output metric with its unit, scope, better direction and meaning");
  bool describe_markdown = false;
  describe_cmd->add_flag("--markdown", describe_markdown,
                         "print the whole reference as Markdown (docs/scenario-reference.md; with metrics: docs/metrics.md)");

  auto* schema_cmd = app.add_subcommand("schema", "print a JSON Schema (draft 2020-12) of the scenario format");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  dcsim::sim::install_interrupt_handlers();
  if (*run_cmd || *sweep_cmd) // TMPDIR folders of dcsim processes killed earlier (SIGKILL cannot clean up)
    dcsim::sim::reclaim_stale_dirs(dcsim::sim::temp_root(), "dcsim-", dcsim::sim::RECLAIM_AFTER_S);
  if (*run_cmd) {
    run.command_line.assign(argv, argv + argc);
    if (replicas > 0) run.overrides.push_back(fmt::format("replicas={}", replicas));
    if (seed >= 0) run.overrides.push_back(fmt::format("seed={}", seed));
    return dcsim::tools::run_command(run);
  }
  if (*sweep_cmd) {
    if (sweep_replicas > 0) sweep.overrides.push_back(fmt::format("replicas={}", sweep_replicas));
    if (sweep_seed >= 0) sweep.overrides.push_back(fmt::format("seed={}", sweep_seed));
    if (!sweep_shard.empty()) {
      if (const std::string error = dcsim::tools::parse_shard(sweep_shard, sweep.shard_index, sweep.shard_count);
          !error.empty()) {
        std::cerr << "dcsim sweep: " << error << "\n";
        return 2;
      }
    }
    return dcsim::tools::sweep_command(sweep);
  }
  if (*compare_cmd) return dcsim::tools::compare_command(compare);
  if (*report_cmd) return dcsim::tools::report_command(report_dir, report_output);
  if (*validate_cmd) return validate_command(validate_path, validate_overrides, validate_outside);
  if (*scenario_cmd) return dcsim::tools::scenario_command(resolved_path, resolved_overrides, resolved_outside);
  if (*step_cmd) return dcsim::tools::step_command(step_path, step_overrides, step_json, step_outside);
  if (*topology_cmd) return dcsim::tools::topology_command(topology);
  if (*cost_cmd) return dcsim::tools::cost_command(cost_options);
  if (*schema_cmd) {
    std::cout << dcsim::tools::scenario_json_schema().dump(2) << "\n";
    return 0;
  }
  if (*describe_cmd && area == dcsim::tools::METRICS_AREA) {
    std::cout << (describe_markdown ? dcsim::tools::metrics_markdown() : dcsim::tools::describe_metrics());
    return 0;
  }
  if (*describe_cmd && describe_markdown) {
    if (!area.empty()) {
      std::cerr << "dcsim describe: --markdown prints every area; give no AREA (or the area metrics)\n";
      return 2;
    }
    std::cout << dcsim::tools::scenario_reference_markdown();
    return 0;
  }
  if (*describe_cmd) {
    std::string out;
    const bool ok = dcsim::tools::describe_keys(area, out);
    (ok ? std::cout : std::cerr) << out;
    return ok ? 0 : 2;
  }
  return 2;
}
