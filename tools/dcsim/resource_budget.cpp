#include "tools/dcsim/resource_budget.hpp"

#include "models/hardware/layout.hpp"
#include "models/workload/checkpoint_interval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <sys/resource.h>
#include <unistd.h>

namespace dcsim::tools {

namespace {

constexpr double EVENTS_PER_FAILURE = 6;
constexpr double EVENTS_PER_CHECKPOINT = 2;
constexpr double EVENT_BYTES = 200;   ///< an EventRecord in a deque, with its detail string
constexpr double CSV_ROW_BYTES = 100; ///< an events.csv row
constexpr double SAMPLE_BYTES = 48;
constexpr double PLAN_FACTOR = 24;    ///< a point's Json document and Scenario per byte of its text
constexpr double PLAN_POINT_BYTES = 64; ///< kept per point: valid flag, run lists, progress, pool slot
constexpr double GB = 1e9;

std::string budget_text(double budget) {
  return fmt::format("{:.1f} GB (half this machine's memory or address-space limit; --memory-budget-gb sets it)",
                     budget / GB);
}

} // namespace

ResourceEstimate estimate_resources(const Scenario& s, int parallel) {
  ResourceEstimate e;
  const hardware::Layout layout(s.hardware, s.cluster);
  const double duration_h = s.duration_h, duration_s = s.duration_h * 3600;
  double largest = -1;
  auto contribute = [&](double events, std::string key, std::string reason) {
    e.events_per_replica += events;
    if (events > largest) {
      largest = events;
      e.main_key = std::move(key);
      e.main_reason = std::move(reason);
    }
  };
  double failures_per_h = 0; // the whole cluster's
  for (std::size_t m = 0; m < s.failures.modes.size(); ++m) {
    const auto& mode = s.failures.modes[m];
    const double units = mode.on_hardware() ? layout.unit_count(mode.scope()) : std::max(1, layout.racks());
    const double rate = units * mode.mean_unit_rate_per_h(layout);
    if (!std::isfinite(rate)) continue;
    failures_per_h += rate;
    contribute(rate * duration_h * EVENTS_PER_FAILURE, fmt::format("/failures/modes/{}", m),
               fmt::format("about {:.2g} failures per replica ({:.0f} units over duration_h {})", rate * duration_h,
                           units, duration_h));
  }
  for (std::size_t j = 0; j < s.jobs.size(); ++j) {
    const auto& job = s.jobs[j];
    if (job.kind != workload::JobKind::TRAINING) continue;
    double every_s = job.checkpoint.interval_s;
    if (job.checkpoint.auto_interval) { // Daly's interval for the failures that reach the job's share
      const double job_rate_per_h = failures_per_h * job.gpus / std::max(1, layout.gpus());
      if (!(job_rate_per_h > 0)) continue;
      every_s = workload::optimal_interval_s(job.checkpoint.write_s, 3600 / job_rate_per_h);
    }
    every_s = std::max(every_s, job.step_time_s);
    if (!(every_s > 0)) continue;
    const double checkpoints = duration_s / every_s;
    contribute(checkpoints * EVENTS_PER_CHECKPOINT, fmt::format("/jobs/{}/checkpoint/interval_s", j),
               fmt::format("about {:.2g} checkpoints per replica (one every {:g} s over duration_h {})", checkpoints,
                           every_s, duration_h));
  }
  // Gauges: about 12 of the cluster's and 4 per job every interval (default.json: 15 an hour), and two
  // per rack with cooling (loop and rack temperatures).
  if (s.output.timeseries_interval_s > 0)
    e.samples_per_replica = duration_s / s.output.timeseries_interval_s *
                            (12.0 + 4.0 * static_cast<double>(s.jobs.size()) + (s.cooling ? 2.0 * layout.racks() : 0.0));
  if (e.main_key.empty() || e.samples_per_replica * SAMPLE_BYTES > e.events_per_replica * EVENT_BYTES) {
    e.main_key = "/duration_h";
    e.main_reason = fmt::format("about {:.2g} time-series samples per replica (duration_h {} every {:g} s)",
                                e.samples_per_replica, duration_h, s.output.timeseries_interval_s);
  }
  const double live = std::max(1, std::min(parallel, s.replicas));
  e.bytes = e.events_per_replica * (live * EVENT_BYTES + s.replicas * 2 * CSV_ROW_BYTES) +
            e.samples_per_replica * (live * SAMPLE_BYTES + s.replicas * 2 * CSV_ROW_BYTES / 2);
  return e;
}

double default_memory_budget_bytes() {
  const double pages = static_cast<double>(::sysconf(_SC_PHYS_PAGES));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  double budget = pages > 0 && page > 0 ? pages * page / 2 : 4 * GB;
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    budget = std::min(budget, static_cast<double>(limit.rlim_cur) / 2);
  return budget;
}

double memory_budget_bytes(double gb) { return gb > 0 ? gb * GB : default_memory_budget_bytes(); }

std::string run_budget_problem(const Scenario& scenario, int parallel, double budget) {
  const ResourceEstimate e = estimate_resources(scenario, parallel);
  if (e.bytes <= budget) return {};
  return fmt::format("the run would need about {:.1f} GB of memory ({:.2g} events and {:.2g} samples per replica, "
                     "{} replicas), more than the budget of {}: {}: {}",
                     e.bytes / GB, e.events_per_replica, e.samples_per_replica, scenario.replicas,
                     budget_text(budget), e.main_key, e.main_reason);
}

std::string sweep_plan_budget_problem(double points, std::size_t document_bytes, double sweep_csv_point_bytes,
                                      double budget) {
  const double bytes = static_cast<double>(document_bytes) * PLAN_FACTOR +
                       points * (PLAN_POINT_BYTES + 2 * sweep_csv_point_bytes);
  if (bytes <= budget) return {};
  return fmt::format("the sweep's plan of {:.0f} points ({:.0f} bytes kept per point, sweep.csv rows included) would "
                     "need about {:.1f} GB of memory, more than the budget of {}: vary fewer values (--vary, --zip, "
                     "/sweep) or run it in shards (--shard)",
                     points, PLAN_POINT_BYTES + 2 * sweep_csv_point_bytes, bytes / GB, budget_text(budget));
}

} // namespace dcsim::tools
