#include "sim/process_pool.hpp"

#include "sim/event_queue.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <unistd.h>

using dcsim::sim::ProcessPool;

TEST_CASE("results come back in task order whatever the parallelism", "[unit][process_pool]") {
  auto task = [](int i, const auto& progress) {
    progress(0.5);
    ::usleep(static_cast<useconds_t>((7 - i) * 2000)); // later tasks finish first
    return std::to_string(i * i) + "@" + std::to_string(::getpid());
  };
  for (int parallel : {1, 3}) {
    const auto out = ProcessPool(parallel).map(7, task);
    REQUIRE(out.size() == 7);
    for (int i = 0; i < 7; ++i)
      CHECK(out[static_cast<std::size_t>(i)].rfind(std::to_string(i * i) + "@", 0) == 0);
    CHECK(out[0] != out[1]); // different child processes (different pids)
  }
}

TEST_CASE("a failing task is reported by index with its message", "[unit][process_pool]") {
  auto task = [](int i, const auto&) -> std::string {
    if (i == 2) throw std::runtime_error("boom");
    return "ok";
  };
  CHECK_THROWS_WITH(ProcessPool(2).map(4, task), "task 2 failed: boom");
}

TEST_CASE("a crashing task is reported with its signal", "[unit][process_pool]") {
  auto task = [](int i, const auto&) -> std::string {
    if (i == 1) ::abort();
    return "ok";
  };
  CHECK_THROWS_WITH(ProcessPool(2).map(2, task), Catch::Contains("task 1 failed: killed by signal 6"));
}

TEST_CASE("a task that cannot progress is reported as NoProgress, and no task starts after a failure",
          "[unit][process_pool]") {
  // One at a time: task 1 throws NoProgress, so tasks 2..9 never start (they would leave a file).
  const std::string marks = "process-pool-fail-fast-" + std::to_string(::getpid());
  auto task = [&marks](int i, const auto&) -> std::string {
    if (i == 1) throw dcsim::sim::NoProgress("stuck at t = 1 s");
    if (i >= 2) std::fopen(("/tmp/" + marks + "-" + std::to_string(i)).c_str(), "w");
    return "ok";
  };
  CHECK_THROWS_MATCHES(ProcessPool(1).map(10, task), dcsim::sim::NoProgress,
                       Catch::Matchers::Message("stuck at t = 1 s"));
  for (int i = 2; i < 10; ++i)
    CHECK(::access(("/tmp/" + marks + "-" + std::to_string(i)).c_str(), F_OK) != 0);
}
