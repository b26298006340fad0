#include "tools/dcsim/outputs.hpp"

#include "models/ledger/losses.hpp"
#include "models/ledger/metric_table.hpp"
#include "models/ledger/utilisation_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dcsim::tools {

using sim::CsvSchema;
using sim::CsvTable;

namespace {

// The metric columns of replicas.csv: the metric table's names, in its order.
std::vector<std::string> metric_columns() {
  std::vector<std::string> names;
  for (const auto& def : ledger::metric_table())
    names.push_back(def.name);
  return names;
}

// An entity's metrics, with its cost metrics when the scenario has prices (models/cost/run_cost.hpp).
ledger::Metrics appended(ledger::Metrics m, ledger::Metrics more) {
  for (auto& x : more)
    m.push_back(std::move(x));
  return m;
}
ledger::Metrics job_row(const ledger::ReplicaResult& r, const ledger::JobOutcome& job, const cost::CostModel* cost) {
  ledger::Metrics m = ledger::job_metrics(job, r.peak_flops_per_gpu);
  return cost ? appended(std::move(m), cost::job_cost_metrics(*cost, r, job)) : m;
}
ledger::Metrics service_row(const ledger::ReplicaResult& r, const ledger::ServiceOutcome& sv,
                            const cost::CostModel* cost) {
  ledger::Metrics m = ledger::service_metrics(sv, r.duration);
  return cost ? appended(std::move(m), cost::service_cost_metrics(*cost, r, sv)) : m;
}
ledger::Metrics cluster_row(const ledger::ReplicaResult& r, const cost::CostModel* cost) {
  ledger::Metrics m = ledger::cluster_metrics(r);
  return cost ? appended(std::move(m), cost::cluster_cost_metrics(*cost, r)) : m;
}

} // namespace

const CsvSchema& summary_schema() {
  static const CsvSchema s{"summary.csv", {"scenario", "job", "metric", "mean", "ci95_low", "ci95_high", "replicas"}};
  return s;
}

const CsvSchema& replicas_schema() {
  static const CsvSchema s = [] {
    CsvSchema schema{"replicas.csv", {"replica", "job"}};
    for (auto& name : metric_columns())
      schema.columns.push_back(name);
    return schema;
  }();
  return s;
}

const CsvSchema& ledger_schema() {
  static const CsvSchema s{"ledger.csv", {"replica", "job", "state", "gpu_hours"}};
  return s;
}

const CsvSchema& causes_schema() {
  static const CsvSchema s{"causes.csv", {"replica", "job", "cause", "failures", "interruptions", "mttr_h", "unrepaired"}};
  return s;
}

const CsvSchema& losses_schema() {
  static const CsvSchema s = [] {
    CsvSchema schema{"losses.csv", {}};
    for (const auto& c : ledger::loss_columns())
      schema.columns.emplace_back(c.name);
    return schema;
  }();
  return s;
}

const CsvSchema& events_schema() {
  static const CsvSchema s{"events.csv", {"replica", "time_s", "kind", "component", "scope", "job", "detail"}};
  return s;
}

const CsvSchema& timeseries_schema() {
  static const CsvSchema s{"timeseries.csv", {"replica", "time_s", "entity", "gauge", "value"}};
  return s;
}

const CsvSchema& racks_schema() {
  static const CsvSchema s{"racks.csv", {"replica", "rack", "loop", "availability_frac", "down_gpu_h", "failures"}};
  return s;
}

const CsvSchema& utilisation_series_schema() {
  static const CsvSchema s = [] {
    CsvSchema schema{"fabric_utilisation_series.csv", {}};
    for (const auto& c : ledger::utilisation_columns())
      schema.columns.emplace_back(c.name);
    return schema;
  }();
  return s;
}

const CsvSchema& utilisation_schema() {
  static const CsvSchema s = [] {
    CsvSchema schema{"fabric_utilisation.csv", {}};
    for (const auto& c : ledger::utilisation_columns())
      if (std::string_view(c.name) != "time_s") schema.columns.emplace_back(c.name);
    return schema;
  }();
  return s;
}

namespace {
/// fabric_utilisation(_series).csv rows of a replica.
std::pair<std::string, std::string> utilisation_rows(const ledger::ReplicaResult& r) {
  const auto rep = static_cast<std::int64_t>(r.replica);
  CsvTable summary(utilisation_schema()), series(utilisation_series_schema());
  for (const auto& u : r.fabric_utilisation)
    summary.add_row({rep, u.tier, std::string("all"), static_cast<std::int64_t>(u.links), u.p50_frac, u.p99_frac,
                     u.max_frac, u.mean_frac});
  for (const auto& u : r.fabric_utilisation_series)
    series.add_row({rep, u.time_s, u.tier, std::string("all"), static_cast<std::int64_t>(u.links), u.p50_frac,
                    u.p99_frac, u.max_frac, u.mean_frac});
  return {summary.body(), series.body()};
}
} // namespace

ReplicaRows format_replica_rows(const Scenario& scenario, const ledger::ReplicaResult& r, const cost::CostModel* cost) {
  constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
  const auto rep = static_cast<std::int64_t>(r.replica);
  CsvTable replicas(replicas_schema()), ledger_rows(ledger_schema()), causes(causes_schema()),
      events(events_schema()), series(timeseries_schema()), racks(racks_schema());

  auto metric_row = [&](const std::string& entity, const ledger::Metrics& metrics) {
    for (const auto& [name, value] : metrics)
      if (!ledger::find_metric(name))
        throw std::logic_error(fmt::format("metric {} of {} is not declared in models/ledger/metric_table.cpp",
                                           name, entity));
    std::vector<sim::CsvValue> row{rep, entity};
    for (std::size_t c = 2; c < replicas_schema().columns.size(); ++c) {
      const auto& col = replicas_schema().columns[c];
      auto it = std::find_if(metrics.begin(), metrics.end(), [&col](const auto& m) { return m.first == col; });
      row.emplace_back(it == metrics.end() ? NaN : it->second);
    }
    replicas.add_row(row);
  };
  for (const auto& job : r.jobs) {
    metric_row(job.name, job_row(r, job, cost));
    for (int s = 0; s < workload::JOB_TIME_STATES; ++s) {
      const auto state = static_cast<workload::JobTime>(s);
      ledger_rows.add_row({rep, job.name, std::string(workload::job_time_name(state)), ledger::job_state_gpu_h(job, state)});
    }
    for (std::size_t m = 0; m < r.modes.size(); ++m)
      causes.add_row({rep, job.name, r.modes[m].name, static_cast<std::int64_t>(job.failures_by_mode[m]),
                      static_cast<std::int64_t>(job.interruptions_by_mode[m]), NaN, NaN});
  }
  for (const auto& sv : r.services) {
    metric_row(sv.name, service_row(r, sv, cost));
    const std::vector<double> held{sv.serving_gpu_h, sv.moving_gpu_h, sv.down_gpu_h};
    const auto names = ledger::service_ledger_states();
    for (std::size_t i = 0; i < names.size(); ++i)
      ledger_rows.add_row({rep, sv.name, names[i], held[i]});
  }
  metric_row("cluster", cluster_row(r, cost));
  const auto states = ledger::cluster_ledger_states();
  const auto values = ledger::cluster_ledger_gpu_h(r);
  for (std::size_t i = 0; i < states.size(); ++i)
    ledger_rows.add_row({rep, std::string("cluster"), states[i], values[i]});
  for (std::size_t m = 0; m < r.modes.size(); ++m) {
    std::uint64_t interruptions = 0;
    for (const auto& job : r.jobs)
      interruptions += job.interruptions_by_mode[m];
    const auto& mode = r.modes[m];
    causes.add_row({rep, std::string("cluster"), mode.name, static_cast<std::int64_t>(mode.failures),
                    static_cast<std::int64_t>(interruptions),
                    mode.repaired ? mode.time_to_repair_h / static_cast<double>(mode.repaired) : NaN,
                    static_cast<std::int64_t>(mode.failures - mode.repaired)});
  }
  for (const auto& e : r.events)
    events.row() << rep << sim::to_seconds(e.time) << e.kind << e.component << e.scope << e.job << e.detail;
  for (const auto& s : r.samples)
    series.row() << rep << sim::to_seconds(s.time) << s.entity << s.gauge << s.value;
  const hardware::Layout layout(scenario.hardware, scenario.cluster);
  const double rack_gpu_h = static_cast<double>(layout.gpus_per_rack()) * sim::to_hours(r.duration);
  for (std::size_t k = 0; k < r.rack_down_gpu_h.size(); ++k) {
    const int rack = static_cast<int>(k);
    const sim::CsvValue loop = scenario.cooling ? sim::CsvValue{static_cast<std::int64_t>(rack / scenario.cooling->racks_per_loop)}
                                                : sim::CsvValue{std::string()};
    racks.add_row({rep, layout.rack_name(rack), loop, 1.0 - r.rack_down_gpu_h[k] / rack_gpu_h, r.rack_down_gpu_h[k],
                   static_cast<std::int64_t>(r.rack_failures[k])});
  }
  CsvTable losses(losses_schema());
  for (const auto& l : ledger::loss_rows(r))
    losses.add_row({rep, l.job, l.cause, l.domain, l.state, fmt::format("{}", l.gpu_us), l.gpu_h, l.share_of_paid_frac});
  auto [utilisation, utilisation_series] = utilisation_rows(r);
  return {replicas.body(), ledger_rows.body(), causes.body(), events.body(), series.body(), racks.body(),
          losses.body(), std::move(utilisation), std::move(utilisation_series)};
}

ReplicaOutputs replica_outputs(const Scenario& scenario, const ledger::ReplicaResult& result,
                               const cost::CostModel* cost) {
  ReplicaOutputs out;
  out.rows = format_replica_rows(scenario, result, cost);
  for (const auto& job : result.jobs)
    out.metrics.emplace_back(job.name, job_row(result, job, cost));
  for (const auto& sv : result.services)
    out.metrics.emplace_back(sv.name, service_row(result, sv, cost));
  out.metrics.emplace_back("cluster", cluster_row(result, cost));
  return out;
}

RunSummary summarize_replicas(const std::vector<ReplicaOutputs>& replicas) {
  RunSummary out;
  if (replicas.empty()) return out;
  for (std::size_t e = 0; e < replicas.front().metrics.size(); ++e) {
    const auto& [entity, first] = replicas.front().metrics[e];
    std::vector<std::pair<std::string, sim::Summary>> metrics;
    for (std::size_t m = 0; m < first.size(); ++m) {
      std::vector<double> values;
      for (const auto& r : replicas)
        values.push_back(r.metrics.at(e).second.at(m).second);
      metrics.emplace_back(first[m].first, sim::summarize(values));
    }
    out.entities.emplace_back(entity, std::move(metrics));
  }
  return out;
}

void write_outputs(const std::filesystem::path& dir, const Scenario& scenario,
                   const std::vector<ReplicaOutputs>& replicas, const RunSummary& summary,
                   sim::Compression compression) {
  std::filesystem::create_directories(dir);
  CsvTable sum(summary_schema());
  for (const auto& [entity, metrics] : summary.entities)
    for (const auto& [name, s] : metrics)
      sum.add_row({scenario.name, entity, name, s.mean, s.ci95_low, s.ci95_high, static_cast<std::int64_t>(s.n)});
  CsvTable reps(replicas_schema()), led(ledger_schema()), causes(causes_schema()), events(events_schema()),
      series(timeseries_schema()), racks(racks_schema()), losses(losses_schema()), util(utilisation_schema()),
      util_series(utilisation_series_schema());
  for (const auto& r : replicas) {
    util.append_formatted(r.rows.utilisation);
    util_series.append_formatted(r.rows.utilisation_series);
    reps.append_formatted(r.rows.replicas);
    led.append_formatted(r.rows.ledger);
    causes.append_formatted(r.rows.causes);
    events.append_formatted(r.rows.events);
    series.append_formatted(r.rows.timeseries);
    racks.append_formatted(r.rows.racks);
    losses.append_formatted(r.rows.losses);
  }
  std::vector<const CsvTable*> tables{&reps, &led, &causes, &events, &series, &racks, &losses, &sum};
  if (scenario.fabric) { // the fabric's link utilisation: only where there is a fabric
    tables.push_back(&util);
    tables.push_back(&util_series);
  }
  for (const CsvTable* t : tables)
    sim::write_file_atomically(dir / (t->schema().name + std::string(sim::compression_suffix(compression))),
                               sim::compress(t->text(), compression));
}

std::string summary_table(const Scenario& scenario, const RunSummary& summary, int gpus) {
  std::string out = fmt::format("scenario {}: {} GPUs, {} h, {} replicas (mean and 95% confidence interval)\n",
                                scenario.name, gpus, scenario.duration_h, scenario.replicas);
  out += fmt::format("{:<14} {:<26} {:>14} {:>31}\n", "job", "metric", "mean", "95% CI");
  auto fmt_value = [](double v) {
    if (std::isnan(v)) return std::string("-");
    if (std::isinf(v)) return std::string(v > 0 ? "inf" : "-inf");
    if (std::fabs(v) >= 1e5) return fmt::format("{:.0f}", v);
    if (v != 0 && std::fabs(v) < 1e-3) return fmt::format("{:.4g}", v);
    return fmt::format("{:.4f}", v);
  };
  for (const auto& [entity, metrics] : summary.entities)
    for (const auto& [name, s] : metrics) {
      if (const ledger::MetricDef* def = ledger::find_metric(name); !def || !def->on_terminal) continue;
      const std::string ci =
          std::isnan(s.ci95_low) ? "-" : fmt::format("[{}, {}]", fmt_value(s.ci95_low), fmt_value(s.ci95_high));
      out += fmt::format("{:<14} {:<26} {:>14} {:>31}\n", entity, name, fmt_value(s.mean), ci);
    }
  return out;
}

} // namespace dcsim::tools
