// Temporary folders named after their process, and the reclaiming of those left by dead processes
// (sim/temp_dir.hpp).
#include "sim/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace fs = std::filesystem;
using dcsim::sim::reclaim_stale_dirs;
using dcsim::sim::TempDir;

namespace {
fs::path fresh(const std::string& name) {
  const fs::path dir = fs::path(DCSIM_TEST_OUTPUT_DIR) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
} // namespace

TEST_CASE("a TempDir is named after its process and removed with its files unless released", "[unit][temp_dir]") {
  const fs::path parent = fresh("temp-dir");
  fs::path kept;
  {
    const TempDir dir(parent, "dcsim-");
    const std::string name = dir.path().filename().string();
    CHECK(name.rfind(fmt::format("dcsim-{}-", ::getpid()), 0) == 0);
    CHECK(name.size() == fmt::format("dcsim-{}-", ::getpid()).size() + 6);
    std::ofstream(dir.path() / "task-0.out") << "result";
    TempDir released(parent, ".run.tmp-");
    kept = released.path();
    released.release();
  }
  CHECK(fs::exists(kept));
  CHECK(std::distance(fs::directory_iterator(parent), fs::directory_iterator()) == 1);
  CHECK_THROWS_WITH(TempDir(parent / "no-such-folder", "dcsim-"),
                    Catch::StartsWith(fmt::format("cannot create {}/no-such-folder/dcsim-{}-XXXXXX: No such file",
                                                  parent.string(), ::getpid())));
}

TEST_CASE("stale folders: only a dead process's, only once old enough, only with the prefix", "[unit][temp_dir]") {
  const fs::path parent = fresh("temp-dir-reclaim");
  // 2^22 + 1 is above Linux's largest pid (pid_max <= 2^22): no such process.
  const std::string dead = "dcsim-4194305-abcdef", alive = fmt::format("dcsim-{}-abcdef", ::getpid());
  for (const std::string& name : {dead, alive, std::string("dcsim-4194305-young"), std::string("dcsim-determinism"),
                                 std::string("other-4194305-abcdef")})
    fs::create_directories(parent / name);
  std::ofstream(parent / dead / "task-0.out") << "left by a SIGKILL";
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  for (const std::string& name : {dead, alive, std::string("dcsim-determinism"), std::string("other-4194305-abcdef")})
    fs::last_write_time(parent / name, old);
  CHECK(reclaim_stale_dirs(parent, "dcsim-", 60) == 1);
  CHECK_FALSE(fs::exists(parent / dead));
  CHECK(fs::exists(parent / alive));                 // its process runs (this test)
  CHECK(fs::exists(parent / "dcsim-4194305-young")); // changed less than a minute ago
  CHECK(fs::exists(parent / "dcsim-determinism"));   // no pid in the name
  CHECK(fs::exists(parent / "other-4194305-abcdef"));
  CHECK(reclaim_stale_dirs(parent, "dcsim-", 0) == 1); // the young one, with no minimum age
}
