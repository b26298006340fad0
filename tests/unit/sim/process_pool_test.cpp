#include "sim/process_pool.hpp"

#include <catch2/catch.hpp>

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
