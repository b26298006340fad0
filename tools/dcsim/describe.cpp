#include "tools/dcsim/describe.hpp"

#include "models/ledger/losses.hpp"
#include "models/ledger/metric_table.hpp"
#include "models/ledger/utilisation_columns.hpp"
#include "models/workload/loss_cause.hpp"
#include "models/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::tools {

bool describe_keys(const std::string& area, std::string& out) {
  std::vector<std::string> areas;
  for (const sim::KeyTable* t : scenario_key_tables())
    if (std::find(areas.begin(), areas.end(), t->area) == areas.end()) areas.push_back(t->area);
  if (!area.empty() && std::find(areas.begin(), areas.end(), area) == areas.end()) {
    out = fmt::format("dcsim describe: unknown area \"{}\"; areas: {}, {} (the output metrics)\n", area,
                      fmt::join(areas, ", "), METRICS_AREA);
    return false;
  }
  for (const sim::KeyTable* t : scenario_key_tables()) {
    if (!area.empty() && t->area != area) continue;
    out += fmt::format("{} — {}\n", t->path.empty() ? "/" : t->path, t->summary);
    out += fmt::format("  {:<22} {:<16} {:<12} {:<24} {}\n", "key", "type", "unit", "default", "meaning");
    for (const auto& k : t->keys) {
      std::string meaning = k.meaning;
      if (!k.bounds.describe().empty() &&
          (k.type == sim::ValueType::NUMBER || k.type == sim::ValueType::INTEGER ||
           k.type == sim::ValueType::NUMBER_OR_STRING))
        meaning += fmt::format(" [{}]", k.bounds.describe());
      if (!k.choices.empty()) meaning += fmt::format(" [one of: {}]", fmt::join(k.choices, ", "));
      out += fmt::format("  {:<22} {:<16} {:<12} {:<24} {}\n", k.name, sim::type_name(k.type),
                         k.unit.empty() ? "-" : k.unit, k.default_text(), meaning);
    }
    out += "\n";
  }
  return true;
}

std::string describe_metrics() {
  std::string out = "metrics of summary.csv and replicas.csv (docs/metrics.md)\n";
  out += fmt::format("  {:<30} {:<10} {:<12} {:<7} {}\n", "metric", "unit", "scope", "better", "meaning");
  for (const auto& d : ledger::metric_table())
    out += fmt::format("  {:<30} {:<10} {:<12} {:<7} {}\n", d.name, d.unit, ledger::scope_name(d.scope),
                       ledger::better_name(d.better), d.meaning);
  out += "\nlosses.csv: each job's held GPU-time by cause and ledger state (docs/metrics.md)\n";
  for (const auto& c : ledger::loss_columns())
    out += fmt::format("  {:<30} {:<10} {}\n", c.name, c.unit, c.meaning);
  out += "mechanisms (causes no failure triggers):\n";
  for (int m = 0; m < workload::MECHANISMS; ++m)
    out += fmt::format("  {:<30} {}\n", workload::MECHANISM_NAMES[static_cast<std::size_t>(m)],
                       ledger::mechanism_meanings()[static_cast<std::size_t>(m)]);
  out += "dcsim compare --metric loss_share_frac:CAUSE=TOL gates a cause's share of each job's paid time\n";
  out += "\nfabric_utilisation.csv (time-weighted per tier) and fabric_utilisation_series.csv (per change): "
         "scenarios with a fabric (docs/metrics.md)\n";
  for (const auto& c : ledger::utilisation_columns())
    out += fmt::format("  {:<30} {:<10} {}\n", c.name, c.unit, c.meaning);
  return out;
}

namespace {

std::string losses_markdown() {
  std::string out =
      "\n## Loss by cause: losses.csv\n\n"
      "Every GPU-microsecond a training job holds (its *paid* time) is charged to a ledger state and to the\n"
      "cause that put it there: a failure mode (the rework it made redo, its detection, the wait for\n"
      "replacements, the restart) or a mechanism no failure triggers (`models/workload/loss_cause.hpp`).\n"
      "Exactness: the job adds integer GPU·µs to (state, cause) with each charge to the state, so per job\n"
      "and state the rows' `gpu_us` sum exactly to the state's GPU·µs, whose conversion to GPU-hours is\n"
      "`ledger.csv`'s value. Rows: per replica, each job's non-zero (state, cause) cells, then the\n"
      "`cluster` rows (the jobs' cells summed). The report draws them as a waterfall (`#loss-waterfall`);\n"
      "`dcsim compare --metric loss_share_frac:CAUSE=TOL` gates a cause's share of each job's paid time\n"
      "(lower is better: a rise beyond TOL that the test finds significant is a regression, exit 5).\n\n"
      "| column | unit | meaning |\n|---|---|---|\n";
  for (const auto& c : ledger::loss_columns())
    out += fmt::format("| `{}` | {} | {} |\n", c.name, c.unit, c.meaning);
  out += "\n| mechanism | meaning |\n|---|---|\n";
  for (int m = 0; m < workload::MECHANISMS; ++m)
    out += fmt::format("| `{}` | {} |\n", workload::MECHANISM_NAMES[static_cast<std::size_t>(m)],
                       ledger::mechanism_meanings()[static_cast<std::size_t>(m)]);
  return out;
}

std::string utilisation_markdown() {
  std::string out =
      "\n## Fabric link utilisation: fabric_utilisation.csv, fabric_utilisation_series.csv\n\n"
      "Written for scenarios with a fabric (`models/fabric/link_utilisation.hpp`). A link's utilisation is\n"
      "u_l = Σ_jobs Σ_phases t_k · Σ_{flows f of phase k through l} x_f / T ÷ C_l: x_f the flow's rate while its\n"
      "phase runs alone (bytes/s, max-min in lockstep), t_k the phase's seconds alone, T the job's step with\n"
      "sharing (local + Σ t_k·σ_k, σ_k the shared fabric's factor), C_l the link's live capacity (bytes/s).\n"
      "It is the phase's rate while it runs times its duty share of the step: sharing stretches steps, not\n"
      "bytes per step. Quantiles are over the tier's live links, weighted by time over the replica in\n"
      "`fabric_utilisation.csv`, at each change in `fabric_utilisation_series.csv` (a row per tier whose\n"
      "figures changed). The report draws them per tier (`#fabric-utilisation`).\n\n"
      "| column | unit | meaning |\n|---|---|---|\n";
  for (const auto& c : ledger::utilisation_columns())
    out += fmt::format("| `{}` | {} | {} |\n", c.name, c.unit, c.meaning);
  return out;
}

} // namespace

std::string metrics_markdown() {
  std::string out =
      "# Metrics\n\n"
      "<!-- Generated from the metric table by `dcsim describe metrics --markdown`; do not edit: run "
      "tools/update-docs. -->\n\n"
      "Every metric of `summary.csv` and `replicas.csv`, generated from the metric table that the outputs and\n"
      "`dcsim compare` use (`models/ledger/metric_table.cpp`); `replica_result.hpp` gives the equations.\n"
      "Rows are in `replicas.csv` column order. *Scope* says which rows carry the metric: a training job's,\n"
      "the `cluster` row, an inference service's, or a job's and the cluster's (`job+cluster`). *Better* is\n"
      "the direction `dcsim compare` checks: `none` marks inputs and policy figures, compared but never a\n"
      "regression. A metric is empty (NaN) in a row where it is undefined.\n\n"
      "| metric | unit | scope | better | meaning |\n|---|---|---|---|---|\n";
  for (const auto& d : ledger::metric_table())
    out += fmt::format("| `{}` | {} | {} | {} | {}{} |\n", d.name, d.unit, ledger::scope_name(d.scope),
                       ledger::better_name(d.better), d.meaning,
                       d.family.empty() ? std::string() : fmt::format(" (family `{}`)", d.family));
  return out + losses_markdown() + utilisation_markdown();
}

} // namespace dcsim::tools
