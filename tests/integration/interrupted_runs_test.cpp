// Runs that cannot progress, and interrupted runs (issue 13, items 3 and 5), through the dcsim binary.
#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;

namespace {

std::string source(const std::string& relative) {
  return std::string(DCSIM_SOURCE_DIR) + "/" + relative;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TEST_CASE("a run whose failure rate stops simulated time exits 3 within seconds, saying so",
          "[scenario][workflow][watchdog]") {
  // default.json's software faults at 10^6 per GPU-day instead of 7.1e-5 (repaired at once, so the GPUs
  // keep failing): 1,152 GPUs fail every 75 ns of simulated time on average. Without the watchdog the
  // replica would fire ~10^13 events; it is stopped after 10^6 events that moved the clock ~66 s.
  const fs::path dir = test::fresh_test_dir("watchdog");
  const std::string absurd = "--set failures.modes.2.rate_per_gpu_day=1e6 --replicas 2 -j 2";
  const auto t0 = std::chrono::steady_clock::now();
  const auto run = run_shell(fmt::format("{} run {} {} --out {} 2>&1", dcsim_binary(),
                                         shell_quote(source("scenarios/default.json")), absurd,
                                         shell_quote((dir / "run").string())));
  const double elapsed_s = seconds_since(t0);
  INFO(run.output);
  CHECK(run.exit_code == 3);
  CHECK(run.output.find("dcsim: replica 0: the run cannot progress: 1000000 events moved the clock only ") !=
        std::string::npos);
  CHECK(run.output.find("check the scenario's failure rates") != std::string::npos);
  CHECK(elapsed_s < 10);
  CHECK_FALSE(fs::exists(dir / "run")); // nothing written
  WARN(fmt::format("watchdog: dcsim run stopped in {:.2f} s", elapsed_s));

  // In a sweep: the point that cannot progress is named; exit 3 as well.
  const auto sweep = run_shell(fmt::format("{} sweep {} --vary failures.modes.2.rate_per_gpu_day=7.1e-5,1e6 "
                                           "--replicas 1 -j 2 -q --out {} 2>&1",
                                           dcsim_binary(), shell_quote(source("scenarios/default.json")),
                                           shell_quote((dir / "sweep").string())));
  INFO(sweep.output);
  CHECK(sweep.exit_code == 3);
  CHECK(sweep.output.find("dcsim sweep: point 1 (failures.modes.2.rate_per_gpu_day=1000000.0): replica 0: the run "
                          "cannot progress: ") != std::string::npos);
}
