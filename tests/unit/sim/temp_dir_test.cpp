// Temporary folders named after their process, and the reclaiming of those left by dead processes
// (sim/temp_dir.hpp).
#include "sim/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using dcsim::sim::reclaim_stale_dirs;
using dcsim::sim::TempDir;

namespace {
std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

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

namespace {
/// A folder as a TempDir of process `pid` leaves it when killed: its owner marker, no lock held.
void plant_marked(const fs::path& dir, long pid) {
  fs::create_directories(dir);
  std::ofstream(dir / dcsim::sim::TEMP_MARKER_FILE) << fmt::format("dcsim-temp {}\n", pid);
}
} // namespace

TEST_CASE("stale folders: only a dead process's, only once old enough, only with the prefix", "[unit][temp_dir]") {
  const fs::path parent = fresh("temp-dir-reclaim");
  // 2^22 + 1 is above Linux's largest pid (pid_max <= 2^22): no such process.
  const std::string dead = "dcsim-4194305-abcdef";
  plant_marked(parent / dead, 4194305);
  plant_marked(parent / "dcsim-4194305-young", 4194305);
  plant_marked(parent / "other-4194305-abcdef", 4194305);
  fs::create_directories(parent / "dcsim-determinism");
  const TempDir alive(parent, "dcsim-"); // a live owner holds its marker's lock
  std::ofstream(parent / dead / "task-0.out") << "left by a SIGKILL";
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  for (const std::string& name : {dead, std::string("dcsim-determinism"), std::string("other-4194305-abcdef")})
    fs::last_write_time(parent / name, old);
  fs::last_write_time(alive.path(), old);
  CHECK(reclaim_stale_dirs(parent, "dcsim-", 60) == 1);
  CHECK_FALSE(fs::exists(parent / dead));
  CHECK(fs::exists(alive.path()));                   // its owner lives (this test) and holds the lock
  CHECK(fs::exists(parent / "dcsim-4194305-young")); // changed less than a minute ago
  CHECK(fs::exists(parent / "dcsim-determinism"));   // no pid in the name
  CHECK(fs::exists(parent / "other-4194305-abcdef"));
  CHECK(reclaim_stale_dirs(parent, "dcsim-", 0) == 1); // the young one, with no minimum age
}

// Issue 25: a folder is never reclaimed for its name alone. Each of these looks like a dead dcsim's
// folder by name and age, but this program did not provably write it: it stays.
TEST_CASE("stale folders without this program's owner marker survive", "[unit][temp_dir]") {
  const fs::path parent = fresh("temp-dir-foreign");
  fs::create_directories(parent / "dcsim-123-x");                 // no marker (another program's, with a file)
  std::ofstream(parent / "dcsim-123-x" / "theirs") << "kept\n";
  plant_marked(parent / "dcsim-124-x", 999);                      // a marker naming another pid
  fs::create_directories(parent / "dcsim-125-x");                 // a marker that is a link
  std::ofstream(parent / "target") << "dcsim-temp 125\n";
  fs::create_symlink(parent / "target", parent / "dcsim-125-x" / dcsim::sim::TEMP_MARKER_FILE);
  plant_marked(parent / "elsewhere", 126);
  fs::create_directory_symlink(parent / "elsewhere", parent / "dcsim-126-x"); // a link to a marked folder
  const bool root = ::geteuid() == 0;
  if (root) { // another user's folder, marked as this program marks its own
    plant_marked(parent / "dcsim-127-x", 127);
    REQUIRE(::chown((parent / "dcsim-127-x").c_str(), 65534, 65534) == 0);
    REQUIRE(::chown((parent / "dcsim-127-x" / dcsim::sim::TEMP_MARKER_FILE).c_str(), 65534, 65534) == 0);
  }
  CHECK(reclaim_stale_dirs(parent, "dcsim-", 0) == 0);
  for (const char* name : {"dcsim-123-x", "dcsim-124-x", "dcsim-125-x", "dcsim-126-x", "elsewhere"})
    CHECK(fs::exists(parent / name));
  if (root) CHECK(fs::exists(parent / "dcsim-127-x" / dcsim::sim::TEMP_MARKER_FILE));
}

// Issue 25: the old temporary name (<file>.tmp-<pid>) was opened with fopen: a link planted there, or
// at the target, redirected the write outside the folder.
TEST_CASE("write_file_atomically never writes through a planted link", "[unit][temp_dir]") {
  const fs::path dir = fresh("atomic-write");
  fs::create_directories(dir / "out");
  std::ofstream(dir / "victim") << "precious\n";
  const fs::path target = dir / "out" / "sweep.csv";
  fs::create_symlink(dir / "victim", fmt::format("{}.tmp-{}", target.string(), ::getpid()));
  fs::create_symlink(dir / "victim", target);
  dcsim::sim::write_file_atomically(target, "a,b\n");
  CHECK(read_all(dir / "victim") == "precious\n");
  CHECK(fs::is_regular_file(fs::symlink_status(target)));
  CHECK(read_all(target) == "a,b\n");
  std::size_t temporaries = 0; // only the planted link is left beside it
  for (const auto& e : fs::directory_iterator(dir / "out"))
    temporaries += e.path().filename().string().find(".tmp-") != std::string::npos;
  CHECK(temporaries == 1);
  // A folder that cannot take the file: an error naming it, nothing left behind.
  CHECK_THROWS_WITH(dcsim::sim::write_file_atomically(dir / "missing" / "x.csv", "x"),
                    Catch::Contains("x.csv: cannot create a temporary file"));
}

// A run killed (SIGKILL) between mkdtemp and its marker leaves an empty folder, or one holding only an
// empty marker: when the pid in its name is gone, it is removed (rmdir cannot lose anything); a live
// pid's empty folder, and an empty marker beside another file, stay.
TEST_CASE("an empty folder of a dead process, killed before its marker, is reclaimed, and nothing else is", "[unit][temp_dir]") {
  const fs::path parent = fresh("temp-dir-empty");
  pid_t dead = ::fork(); // a pid that surely existed and is gone once reaped
  if (dead == 0) ::_exit(0);
  REQUIRE(dead > 0);
  int status = 0;
  REQUIRE(::waitpid(dead, &status, 0) == dead);
  const std::string gone = fmt::format("dcsim-{}-", dead);
  fs::create_directories(parent / (gone + "empty"));
  fs::create_directories(parent / (gone + "marker"));
  std::ofstream(parent / (gone + "marker") / dcsim::sim::TEMP_MARKER_FILE).close(); // created, never written
  fs::create_directories(parent / (gone + "more"));
  std::ofstream(parent / (gone + "more") / dcsim::sim::TEMP_MARKER_FILE).close();
  std::ofstream(parent / (gone + "more") / "data") << "x\n";
  fs::create_directories(parent / fmt::format("dcsim-{}-alive", ::getpid()));
  CHECK(reclaim_stale_dirs(parent, "dcsim-", 0) == 2);
  CHECK_FALSE(fs::exists(parent / (gone + "empty")));
  CHECK_FALSE(fs::exists(parent / (gone + "marker")));
  CHECK(fs::exists(parent / (gone + "more") / "data"));
  CHECK(fs::exists(parent / (gone + "more") / dcsim::sim::TEMP_MARKER_FILE));
  CHECK(fs::exists(parent / fmt::format("dcsim-{}-alive", ::getpid())));
}
