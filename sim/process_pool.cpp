#include "sim/process_pool.hpp"

#include "sim/event_queue.hpp"
#include "sim/interrupt.hpp"
#include "sim/temp_dir.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <new>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dcsim::sim {
namespace {

constexpr int EXIT_TASK_FAILED = 1;
constexpr int EXIT_TASK_NO_PROGRESS = 4;
constexpr int EXIT_RESULT_UNWRITTEN = 3;

/// Ends the children on an interrupt: SIGTERM (a child that owns folders removes them and dies; a
/// replica dies at once), SIGKILL for any still alive after a few seconds.
void end_children(const std::map<pid_t, int>& running) {
  for (const auto& [pid, task] : running)
    ::kill(pid, SIGTERM);
  std::size_t left = running.size();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done > 0 && running.count(done)) --left;
    else if (done < 0 && errno == ECHILD) return;
    else std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const auto& [pid, task] : running)
    ::kill(pid, SIGKILL);
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A forked child runs task `index`: its result to `result`, its error to `error`, and exits with the code
/// the parent reads (never returns: no destructors, the parent owns the platform and the files).
[[noreturn]] void run_child(const ProcessPool::Task& task, int index, volatile double* progress,
                            const std::filesystem::path& result, const std::filesystem::path& error) {
  int code = 0;
  try {
    const std::string out = task(index, [progress, index](double f) { progress[index] = f; });
    std::ofstream file(result, std::ios::binary);
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
    file.close();
    if (!file) code = EXIT_RESULT_UNWRITTEN;
  } catch (const NoProgress& e) {
    std::ofstream(error) << e.what();
    code = EXIT_TASK_NO_PROGRESS;
  } catch (const std::bad_alloc&) { // a clear error, never an abort; its caller's exit code is 3
    std::ofstream(error) << "out of memory (std::bad_alloc): the task needs more memory than "
                            "this process may use";
    code = EXIT_TASK_NO_PROGRESS;
  } catch (const std::exception& e) {
    std::ofstream(error) << e.what();
    code = EXIT_TASK_FAILED;
  } catch (...) {
    std::ofstream(error) << "unknown exception";
    code = EXIT_TASK_FAILED;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

/// Progress shared with the forked children: `count` doubles, all 0, in `bytes` of shared memory.
volatile double* map_progress(int count, std::size_t bytes) {
  void* shared = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error("cannot map shared progress memory");
  auto* progress = static_cast<volatile double*>(shared);
  for (int i = 0; i < count; ++i)
    progress[i] = 0.0;
  return progress;
}

/// A copy of every task's progress.
std::vector<double> progress_of(const volatile double* progress, int count) {
  std::vector<double> p(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    p[static_cast<std::size_t>(i)] = progress[i];
  return p;
}

/// Why a child that did not exit 0 failed: its signal, the error it wrote, or its exit status.
std::string failure_reason(int status, const std::filesystem::path& error) {
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
  if (std::filesystem::exists(error)) return read_all(error);
  return fmt::format("exit status {}", WEXITSTATUS(status));
}

} // namespace

std::vector<std::string> ProcessPool::map(int count, const Task& task, const Reporter& report,
                                          double report_period_s) const {
  std::vector<std::string> results(static_cast<std::size_t>(count));
  if (count <= 0) return results;

  const std::size_t shared_bytes = sizeof(double) * static_cast<std::size_t>(count);
  volatile double* progress = map_progress(count, shared_bytes);

  const TempDir temp(temp_root(), "dcsim-");
  const std::filesystem::path& dir = temp.path();
  auto result_path = [&dir](int i) { return dir / fmt::format("task-{}.out", i); };
  auto error_path = [&dir](int i) { return dir / fmt::format("task-{}.err", i); };

  std::map<pid_t, int> running;
  std::vector<TaskFailure> failures;
  int next = 0;
  int finished = 0;
  auto last_report = std::chrono::steady_clock::now();

  auto snapshot = [&] { return progress_of(progress, count); };

  const pid_t parent = ::getpid();
  while (!running.empty() || (next < count && failures.empty())) {
    if (interrupted()) {
      end_children(running);
      die_if_interrupted();
    }
    while (next < count && failures.empty() && static_cast<int>(running.size()) < parallel_) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
      if (pid == 0) {
        // A child never outlives its parent: when the parent is killed, its tasks end too (no orphan
        // goes on writing results that nobody collects).
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        run_child(task, next, progress, result_path(next), error_path(next));
      }
      running.emplace(pid, next++);
    }

    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      const int index = running.at(done);
      running.erase(done);
      ++finished;
      progress[index] = 1.0;
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        results[static_cast<std::size_t>(index)] = read_all(result_path(index));
      } else {
        const std::string reason = failure_reason(status, error_path(index));
        failures.push_back(
            TaskFailure{index, reason, WIFEXITED(status) && WEXITSTATUS(status) == EXIT_TASK_NO_PROGRESS});
      }
      continue;
    }
    if (done < 0 && errno != EINTR) throw std::runtime_error(fmt::format("waitpid failed: {}", std::strerror(errno)));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto now = std::chrono::steady_clock::now();
    if (report && std::chrono::duration<double>(now - last_report).count() >= report_period_s) {
      report(snapshot(), finished);
      last_report = now;
    }
  }
  if (report) report(snapshot(), finished);
  ::munmap(const_cast<double*>(progress), shared_bytes);
  die_if_interrupted();
  if (!failures.empty()) {
    std::sort(failures.begin(), failures.end(), [](const auto& a, const auto& b) { return a.task < b.task; });
    if (failures.front().no_progress) throw NoProgress(failures.front().reason);
    throw std::runtime_error(fmt::format("task {} failed: {}", failures.front().task, failures.front().reason));
  }
  return results;
}

std::string run_in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    std::string out;
    char status = 'o';
    try {
      out = body();
    } catch (const std::exception& e) {
      status = 'e';
      out = e.what();
    } catch (...) {
      status = 'e';
      out = "unknown exception";
    }
    out.insert(out.begin(), status);
    const char* p = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      const ssize_t n = ::write(fds[1], p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(3);
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    ::_exit(0); // no destructors: the parent owns everything
  }
  ::close(fds[1]);
  std::string in;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  pid_t waited = -1;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != pid) throw std::runtime_error(fmt::format("waitpid failed: {}", std::strerror(errno)));
  die_if_interrupted();
  if (WIFSIGNALED(status))
    throw std::runtime_error(fmt::format("child killed by signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status))));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || in.empty())
    throw std::runtime_error(fmt::format("child failed (exit status {})", WEXITSTATUS(status)));
  if (in.front() == 'e') throw std::runtime_error(in.substr(1));
  return in.substr(1);
}

} // namespace dcsim::sim
