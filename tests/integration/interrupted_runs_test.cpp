// Runs that cannot progress, and interrupted runs (issue 13, items 3 and 5), through the dcsim binary.
#include "sim/temp_dir.hpp"
#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;
using test::source_path;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A small, fast run: default.json, 4 replicas of 4,000 h on 2 processes (~0.3 s).
std::vector<std::string> run_args(const fs::path& out, int seed) {
  return {"run",  source_path("scenarios/default.json"), "--replicas", "4", "--set", "duration_h=4000", "-j", "2", "-q",
          "--seed", std::to_string(seed), "--force", "--out", out.string()};
}

pid_t spawn_dcsim(const std::vector<std::string>& args) {
  std::string binary = DCSIM_BINARY;
  std::vector<std::string> words = {binary};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  REQUIRE(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/// Runs dcsim to its end; its exit code.
int run_dcsim(const std::vector<std::string>& args) {
  const int status = wait_status(spawn_dcsim(args));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A folder's files and contents; run.json (provenance: its date and command line differ run to run) by
/// name only. A temporary folder's owner marker (sim::TEMP_MARKER_FILE) is left out: every reader ignores
/// it, and a run killed between writing complete.json and publishing (or between the exchange and removing
/// the marker) leaves a run's complete outputs that hold one.
std::map<std::string, std::string> file_set(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == sim::TEMP_MARKER_FILE) continue;
    files[name] = !e.is_regular_file() ? std::string("<not a file>") : name == "run.json" ? "" : read_text(e.path());
  }
  return files;
}

/// Entries of `dir` whose names start with `prefix`.
std::vector<fs::path> entries(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  return out;
}

int compare_exit(const fs::path& a, const fs::path& b) {
  return run_shell(fmt::format("{} compare {} {} >/dev/null 2>&1", dcsim_binary(), shell_quote(a.string()),
                               shell_quote(b.string())))
      .exit_code;
}

int report_exit(const fs::path& dir, const fs::path& html) {
  return run_shell(fmt::format("{} report {} -o {} >/dev/null 2>&1", dcsim_binary(), shell_quote(dir.string()),
                               shell_quote(html.string())))
      .exit_code;
}

} // namespace

TEST_CASE("a run whose failure rate stops simulated time exits 3 within seconds, saying so",
          "[scenario][workflow][watchdog]") {
  // default.json's software faults at 10^6 per GPU-day instead of 7.1e-5 (repaired at once, so the GPUs
  // keep failing): 1,152 GPUs fail every 75 ns of simulated time on average. Without the watchdog the
  // replica would fire ~10^13 events; it is stopped after 10^6 events that moved the clock ~66 s.
  const fs::path dir = test::fresh_test_dir("watchdog");
  // The memory budget refuses it up front (~1.8e10 failures per replica), exit 3 naming the mode...
  const auto refused = run_shell(fmt::format("{} run {} --set failures.modes.2.rate_per_gpu_day=1e6 --out {} 2>&1",
                                             dcsim_binary(), shell_quote(source_path("scenarios/default.json")),
                                             shell_quote((dir / "run").string())));
  CHECK(refused.exit_code == 3);
  CHECK(refused.output.find(": /failures/modes/2: about 1.8e+10 failures per replica") != std::string::npos);
  // ...and with the budget lifted, the watchdog stops what the estimate would have missed.
  const std::string absurd = "--set failures.modes.2.rate_per_gpu_day=1e6 --replicas 2 -j 2 --memory-budget-gb 1e9";
  const auto t0 = std::chrono::steady_clock::now();
  const auto run = run_shell(fmt::format("{} run {} {} --out {} 2>&1", dcsim_binary(),
                                         shell_quote(source_path("scenarios/default.json")), absurd,
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
                                           "--replicas 1 -j 2 -q --memory-budget-gb 1e9 --out {} 2>&1",
                                           dcsim_binary(), shell_quote(source_path("scenarios/default.json")),
                                           shell_quote((dir / "sweep").string())));
  INFO(sweep.output);
  CHECK(sweep.exit_code == 3);
  CHECK(sweep.output.find("dcsim sweep: point 1 (failures.modes.2.rate_per_gpu_day=1000000.0): replica 0: the run "
                          "cannot progress: ") != std::string::npos);
}

TEST_CASE("dcsim run killed (SIGKILL) at random moments over an earlier run: the folder holds exactly one run",
          "[scenario][workflow][outputs]") {
  // References: the earlier run (seed 1) and the new one (seed 2), each run to its end. Each trial puts
  // the earlier run's folder back, starts the new run over it and kills it with SIGKILL after a fraction
  // of the new run's measured duration drawn from a fixed seed (a third of them near the end, where the
  // outputs are written and renamed, up to twice the measured duration: under ctest -j2 another test can
  // slow a trial's run well past the reference's time, and every late trial then killed it unfinished). Afterwards the target must be byte for byte one of the two
  // references (every file, complete.json included), and every other folder left beside it must be
  // either one of them too or refused by compare and report.
  const fs::path dir = test::fresh_test_dir("kill-run");
  ::setenv("TMPDIR", (dir / "tmp").c_str(), 1);
  fs::create_directories(dir / "tmp");
  const fs::path old_ref = dir / "ref-old", new_ref = dir / "ref-new", out = dir / "out", target = out / "run";
  REQUIRE(run_dcsim(run_args(old_ref, 1)) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(run_dcsim(run_args(new_ref, 2)) == 0);
  const double full_s = seconds_since(t0);
  const auto old_files = file_set(old_ref), new_files = file_set(new_ref);
  REQUIRE(old_files.count("complete.json"));
  REQUIRE(old_files != new_files);

  constexpr int TRIALS = 24;
  std::mt19937 rng(20261203);
  std::uniform_real_distribution<double> anywhere(0.0, 1.2), late(0.8, 2.0);
  int old_left = 0, new_left = 0, leftovers = 0, leftovers_refused = 0;
  for (int trial = 0; trial < TRIALS; ++trial) {
    const double frac = trial % 3 == 2 ? late(rng) : anywhere(rng);
    fs::remove_all(out);
    fs::create_directories(out);
    fs::copy(old_ref, target);
    const pid_t pid = spawn_dcsim(run_args(target, 2));
    std::this_thread::sleep_for(std::chrono::duration<double>(frac * full_s));
    ::kill(pid, SIGKILL);
    wait_status(pid);
    INFO("trial " << trial << ", killed after " << frac << " x " << full_s << " s");
    REQUIRE(fs::is_directory(target));
    const auto left = file_set(target);
    const bool is_old = left == old_files, is_new = left == new_files;
    CHECK((is_old || is_new));
    old_left += is_old;
    new_left += is_new;
    CHECK(compare_exit(old_ref, target) != 2);
    for (const auto& e : fs::directory_iterator(out)) {
      if (e.path() == target) continue;
      ++leftovers;
      CHECK(e.path().filename().string().rfind(".run.tmp-", 0) == 0); // marked temporary
      const auto files = file_set(e.path());
      if (files == old_files || files == new_files) continue; // one run's complete outputs
      CHECK(compare_exit(old_ref, e.path()) == 2);
      CHECK(report_exit(e.path(), dir / "report.html") == 2);
      ++leftovers_refused;
    }
  }
  WARN(fmt::format("{} SIGKILL trials (run of {:.2f} s): earlier run left {} times, new run {} times; {} temporary "
                   "folders left, {} of them incomplete and refused",
                   TRIALS, full_s, old_left, new_left, leftovers, leftovers_refused));
  CHECK(old_left + new_left == TRIALS);
  CHECK(old_left > 0);
  CHECK(new_left > 0);

  // A run's complete outputs holding an owner marker (what a kill leaves between complete.json and the
  // rename) are read as that run: the marker is ignored by compare and report.
  const fs::path marked = dir / "marked";
  fs::copy(old_ref, marked);
  std::ofstream(marked / sim::TEMP_MARKER_FILE) << "dcsim-temp 12345\n";
  CHECK(compare_exit(old_ref, marked) == 0);
  CHECK(report_exit(marked, dir / "report.html") == 0);

  // A folder mixing the two runs, and one without a completion marker, are refused.
  const fs::path mixed = dir / "mixed", unmarked = dir / "unmarked";
  fs::copy(old_ref, mixed);
  fs::copy_file(new_ref / "summary.csv", mixed / "summary.csv", fs::copy_options::overwrite_existing);
  fs::copy(old_ref, unmarked);
  fs::remove(unmarked / "complete.json");
  for (const auto& bad : {mixed, unmarked}) {
    CHECK(compare_exit(old_ref, bad) == 2);
    CHECK(compare_exit(bad, old_ref) == 2);
    CHECK(report_exit(bad, dir / "report.html") == 2);
  }
  const auto said = run_shell(fmt::format("{} compare {} {} 2>&1", dcsim_binary(), shell_quote(old_ref.string()),
                                          shell_quote(mixed.string())));
  CHECK(said.output == fmt::format("dcsim compare: {}: not a complete run's outputs: summary.csv differs from the "
                                   "one recorded in complete.json (files of different runs mixed, or edited)\n",
                                   mixed.string()));

  // Reclaiming: the killed runs' folders (in TMPDIR and beside the target), once a minute old and their
  // processes gone, are removed by the next run; a folder of a live process is kept.
  fs::create_directories(dir / "tmp" / fmt::format("dcsim-{}-keepme", ::getpid()));
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& p : entries(dir / "tmp", "dcsim-"))
    fs::last_write_time(p, an_hour_ago);
  for (const auto& p : entries(out, ".run.tmp-"))
    fs::last_write_time(p, an_hour_ago);
  const auto stale_tmp = entries(dir / "tmp", "dcsim-").size();
  REQUIRE(run_dcsim(run_args(target, 2)) == 0);
  WARN(fmt::format("reclaimed {} stale TMPDIR folders of killed runs", stale_tmp - 1));
  CHECK(entries(dir / "tmp", "dcsim-") == std::vector<fs::path>{dir / "tmp" / fmt::format("dcsim-{}-keepme", ::getpid())});
  CHECK(entries(out, ".run.tmp-").empty());
  CHECK(file_set(target) == new_files);
}

TEST_CASE("SIGTERM and SIGINT leave no temporary folder behind (run and sweep)", "[scenario][workflow][outputs]") {
  const fs::path dir = test::fresh_test_dir("terminate");
  const fs::path tmp = dir / "tmp";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  fs::create_directories(tmp);
  auto interrupt_when_busy = [&](const std::vector<std::string>& args, int sig, std::size_t temp_dirs) {
    const pid_t pid = spawn_dcsim(args);
    const auto t0 = std::chrono::steady_clock::now();
    while (entries(tmp, "dcsim-").size() < temp_dirs && seconds_since(t0) < 20)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::size_t seen = entries(tmp, "dcsim-").size();
    ::kill(pid, sig);
    const int status = wait_status(pid);
    CHECK(seen >= temp_dirs); // it was interrupted while its children were running
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
    std::this_thread::sleep_for(std::chrono::milliseconds(100)); // children die with their parent
    CHECK(entries(tmp, "").empty());
  };
  // dcsim run: 8 replicas of 20,000 h (several seconds), interrupted once its replicas run.
  const std::vector<std::string> run = {"run", source_path("scenarios/default.json"), "--replicas", "8", "--set",
                                        "duration_h=20000", "-j", "2", "-q", "--out", (dir / "out" / "run").string()};
  interrupt_when_busy(run, SIGTERM, 1);
  CHECK(entries(dir / "out", "").empty()); // no output folder, no temporary one
  interrupt_when_busy(run, SIGINT, 1);
  CHECK(entries(dir / "out", "").empty());
  // dcsim sweep: two points at once, each running its replicas in its own children: three TMPDIR folders
  // (the sweep's and one per point), all removed.
  const std::vector<std::string> sweep = {"sweep", source_path("scenarios/default.json"), "--vary",
                                          "operations.spare_racks=0,2", "--replicas", "4", "--set",
                                          "duration_h=20000", "-j", "2", "-q", "--out", (dir / "sweep").string()};
  interrupt_when_busy(sweep, SIGTERM, 3);
  CHECK(entries(dir / "sweep" / "points", "").empty());
}

TEST_CASE("an output folder that cannot be written is reported before anything is simulated",
          "[scenario][workflow][outputs]") {
  // default.json as it is (10 replicas of two weeks) takes about a second or more; the error comes first.
  const fs::path dir = test::fresh_test_dir("unwritable");
  { std::ofstream(dir / "a-file") << "not a folder\n"; }
  const std::string scenario = shell_quote(source_path("scenarios/default.json"));
  auto timed = [](const std::string& command, double& elapsed_s) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_shell(command);
    elapsed_s = seconds_since(t0);
    return r;
  };
  double elapsed_s = 0;
  const fs::path below_file = dir / "a-file" / "run";
  auto r = timed(fmt::format("{} run {} -j 1 --out {} 2>&1", dcsim_binary(), scenario, shell_quote(below_file.string())),
                 elapsed_s);
  CHECK(r.exit_code == 2);
  CHECK(r.output == fmt::format("dcsim: {}: cannot create {}: Not a directory\n", below_file.string(),
                                (dir / "a-file").string()));
  CHECK(elapsed_s < 1.0);
  r = timed(fmt::format("{} sweep {} --vary operations.spare_racks=0,2 -j 1 --out {} 2>&1", dcsim_binary(), scenario,
                        shell_quote(below_file.string())),
            elapsed_s);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("dcsim sweep: cannot create ") != std::string::npos);
  CHECK(elapsed_s < 1.0);
  // A folder that dcsim did not write is never replaced.
  fs::create_directories(dir / "mine");
  { std::ofstream(dir / "mine" / "notes.txt") << "keep\n"; }
  r = timed(fmt::format("{} run {} --out {} 2>&1", dcsim_binary(), scenario, shell_quote((dir / "mine").string())),
            elapsed_s);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds \"notes.txt\", which is not listed in its complete.json as dcsim outputs") !=
        std::string::npos);
  CHECK(fs::exists(dir / "mine" / "notes.txt"));
  CHECK(elapsed_s < 1.0);
  if (::geteuid() != 0) { // permissions do not stop root
    fs::create_directories(dir / "read-only");
    fs::permissions(dir / "read-only", fs::perms::owner_read | fs::perms::owner_exec);
    r = timed(fmt::format("{} run {} --out {} 2>&1", dcsim_binary(), scenario,
                          shell_quote((dir / "read-only" / "run").string())),
              elapsed_s);
    fs::permissions(dir / "read-only", fs::perms::owner_all);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("cannot write outputs: cannot create ") != std::string::npos);
    CHECK(r.output.find("Permission denied") != std::string::npos);
    CHECK(elapsed_s < 1.0);
  }
}
