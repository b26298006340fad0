#include "tools/dcsim/runner.hpp"

#include "tools/dcsim/resource_budget.hpp"

#include "tools/dcsim/provenance.hpp"

#include "sim/event_queue.hpp"
#include "sim/interrupt.hpp"
#include "sim/process_pool.hpp"
#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/output_folder.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <cstdio>
#include <iostream>
#include <thread>
#include <unistd.h>

namespace dcsim::tools {

std::string no_progress_message(int replica, const std::string& why) {
  return fmt::format("replica {}: the run cannot progress: {} (check the scenario's failure rates, repair and "
                     "detection times, and intervals: events pile up while simulated time stands still)",
                     replica, why);
}

int default_parallelism() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

std::vector<ReplicaOutputs> run_replicas(World& world, int parallel, bool quiet,
                                         const std::function<void(double)>& publish) {
  return run_replica_range(world, 0, world.scenario().replicas, parallel, quiet, publish);
}

std::vector<ReplicaOutputs> run_replica_range(World& world, int first, int count, int parallel, bool quiet,
                                              const std::function<void(double)>& publish) {
  auto results = run_replica_results(world, first, count, parallel, quiet, publish);
  std::vector<ReplicaOutputs> out;
  out.reserve(results.size());
  for (auto& r : results) {
    out.push_back(replica_outputs(world.scenario(), r, world.cost()));
    r = ledger::ReplicaResult{}; // its events and samples are in the rows now
  }
  return out;
}

std::vector<ledger::ReplicaResult> run_replica_results(World& world, int first, int count, int parallel, bool quiet,
                                                       const std::function<void(double)>& publish) {
  const Scenario& s = world.scenario();
  const auto started = std::chrono::steady_clock::now();
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  double last_line = -10;
  bool printed = false;
  sim::ProcessPool pool(parallel);
  auto report = [&](const std::vector<double>& progress, int finished) {
    if (publish) {
      double done = 0;
      for (double p : progress)
        done += p;
      publish(done / static_cast<double>(progress.size()));
      return;
    }
    if (quiet) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (elapsed < 1.0) return;
    if (!tty && elapsed - last_line < 10.0 && finished < static_cast<int>(progress.size())) return;
    last_line = elapsed;
    double done = 0;
    for (double p : progress)
      done += p;
    const double frac = done / static_cast<double>(progress.size());
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    std::cerr << fmt::format("{}dcsim: {}/{} replicas done, {:.1f} of {} simulated days, {:.0f}% | {:.1f} s, ETA {:.0f} s{}",
                             tty ? "\r" : "", finished, progress.size(),
                             frac * static_cast<double>(progress.size()) * s.duration_h / 24.0,
                             static_cast<double>(progress.size()) * s.duration_h / 24.0, frac * 100, elapsed, eta,
                             tty ? "   " : "\n")
              << std::flush;
    printed = true;
  };
  auto payloads = pool.map(
      count,
      [&](int replica, const std::function<void(double)>& progress) {
        try {
          return ledger::encode_replica(world.run_replica(first + replica, progress));
        } catch (const sim::NoProgress& e) {
          throw sim::NoProgress(no_progress_message(first + replica, e.what()));
        }
      },
      report);
  if (printed && tty) std::cerr << "\n";
  std::vector<ledger::ReplicaResult> out;
  out.reserve(payloads.size());
  for (auto& p : payloads) {
    out.push_back(ledger::decode_replica(p));
    std::string().swap(p);
  }
  return out;
}

double worst_goodput_half_width(const RunSummary& summary) {
  double worst = 0;
  for (const auto& [entity, metrics] : summary.entities) {
    if (entity == "cluster") continue;
    for (const auto& [name, st] : metrics)
      if (name == "goodput_frac") {
        const double half = (st.ci95_high - st.ci95_low) / 2;
        if (std::isnan(half)) return std::numeric_limits<double>::quiet_NaN();
        worst = std::max(worst, half);
      }
  }
  return worst;
}

AdaptiveResult run_until_ci(World& world, double target, int max_replicas, int parallel, bool quiet,
                            const std::function<void(double)>& publish) {
  AdaptiveResult out;
  int count = std::min(world.scenario().replicas, max_replicas);
  while (count > 0) {
    const int done = static_cast<int>(out.replicas.size());
    std::function<void(double)> batch_progress;
    if (publish)
      batch_progress = [&publish, done, count, max_replicas](double frac) {
        publish((done + frac * count) / max_replicas);
      };
    auto batch = run_replica_range(world, done, count, parallel, quiet, batch_progress);
    for (auto& r : batch)
      out.replicas.push_back(std::move(r));
    const int n = static_cast<int>(out.replicas.size());
    out.worst_half_width = worst_goodput_half_width(summarize_replicas(out.replicas));
    out.met = out.worst_half_width <= target; // false while undefined (NaN)
    if (!quiet)
      std::cerr << fmt::format("dcsim: {} replicas: widest goodput_frac 95% half-width {:.6f} (target {}){}\n", n,
                               out.worst_half_width, target, out.met ? ": met" : "");
    if (out.met || n >= max_replicas) break;
    count = std::min(std::max(2, n / 2), max_replicas - n);
  }
  return out;
}

void write_scenario_document(const std::filesystem::path& dir, const sim::Json& document) {
  std::filesystem::create_directories(dir);
  sim::write_file_atomically(dir / SCENARIO_DOCUMENT_FILE, document.dump(2) + "\n");
}

int run_command(const RunOptions& options) {
  const LoadedScenario loaded = load_scenario(options.scenario_path, options.overrides, {options.allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  const Scenario& scenario = *loaded.scenario;
  {
    Scenario most = scenario; // with --ci-target, up to --max-replicas replicas
    if (options.ci_target > 0) most.replicas = std::max(most.replicas, options.max_replicas);
    const int parallel = options.parallel > 0 ? options.parallel : default_parallelism();
    if (const std::string problem = run_budget_problem(most, parallel, memory_budget_bytes(options.memory_budget_gb));
        !problem.empty()) {
      std::cerr << "dcsim: " << options.scenario_path << ": " << problem << "\n";
      return EXIT_NO_PROGRESS;
    }
  }
  const std::filesystem::path out_dir =
      options.out_dir.empty() ? std::filesystem::path("out") / scenario.name : std::filesystem::path(options.out_dir);
  // Before anything is simulated: the target must be replaceable and its parent writable.
  std::optional<OutputFolder> folder;
  try {
    folder.emplace(out_dir, options.force);
  } catch (const OutputFolderError& e) {
    std::cerr << "dcsim: " << e.what() << "\n";
    return EXIT_BAD_INPUT;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    World world(scenario);
    const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!options.quiet && build_s >= 1.0)
      std::cerr << fmt::format("dcsim: built {} GPUs in {:.1f} s\n", world.layout().gpus(), build_s);
    if (!scenario.sweep.empty() && !options.quiet)
      std::cerr << "dcsim: the scenario's sweep block is ignored by run (dcsim sweep runs its points)\n";
    const int parallel = options.parallel > 0 ? options.parallel : default_parallelism();
    Scenario ran = scenario;
    sim::Json document = loaded.document;
    std::vector<ReplicaOutputs> replicas;
    bool met = true;
    if (options.ci_target > 0) {
      AdaptiveResult adaptive = run_until_ci(world, options.ci_target, options.max_replicas, parallel, options.quiet);
      replicas = std::move(adaptive.replicas);
      met = adaptive.met;
      ran.replicas = static_cast<int>(replicas.size());
      document["replicas"] = ran.replicas; // re-running scenario.json reproduces these outputs
      if (!met)
        std::cerr << fmt::format("dcsim: {}: --ci-target {} not met after --max-replicas {} replicas (widest "
                                 "goodput_frac 95% half-width {:.6f})\n",
                                 options.ci_target_soft ? "warning" : "error (exit 4)", options.ci_target,
                                 options.max_replicas, adaptive.worst_half_width);
    } else {
      replicas = run_replicas(world, parallel, options.quiet);
    }
    const RunSummary summary = summarize_replicas(replicas);
    write_outputs(folder->staging(), ran, replicas, summary, options.compression);
    write_scenario_document(folder->staging(), document);
    write_run_file(folder->staging(), {options.command_line, options.scenario_path, ran.seed, ran.replicas});
    write_completion_marker(folder->staging());
    sim::die_if_interrupted(); // nothing published after SIGINT/SIGTERM
    folder->publish();
    std::cout << summary_table(ran, summary, world.layout().gpus());
    std::cout << fmt::format("outputs written to {}/\n", folder->target().string());
    return met || options.ci_target_soft ? 0 : EXIT_CI_TARGET_MISSED;
  } catch (const sim::NoProgress& e) {
    std::cerr << "dcsim: " << e.what() << "\n";
    return EXIT_NO_PROGRESS;
  } catch (const std::exception& e) {
    sim::die_if_interrupted(); // a child ended by the signal: die of it too, not "run failed"
    std::cerr << "dcsim: run failed: " << e.what() << "\n";
    return EXIT_RUNTIME_FAILURE;
  }
}

} // namespace dcsim::tools
