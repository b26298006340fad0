// Runs independent tasks in forked child processes, at most `parallel` at a time.
//
// SimGrid allows one engine per process and never resets its clock, so each replica runs in its own
// child. Children are forked from the process that already built the platform: they share its pages
// copy-on-write and pay no build cost. Each child returns its result as bytes through a private
// temporary file; results come back in task order whatever the parallelism, so outputs do not depend
// on `-j`. Children publish their progress (a fraction in [0, 1]) in a shared memory page that the
// parent reads to report progress. A child is killed when its parent dies (PR_SET_PDEATHSIG), so a
// killed run leaves no orphans behind. Once a task has failed no new task starts (the running ones
// finish), so a run whose every task fails stops after the first wave. A task that throws NoProgress
// (sim/event_queue.hpp) is reported as NoProgress with its message, so callers can tell it apart.
// The results travel through a TempDir $TMPDIR/dcsim-<pid>-XXXXXX (sim/temp_dir.hpp), removed when the
// map ends, and on SIGINT/SIGTERM once the children are ended (sim/interrupt.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dcsim::sim {

struct TaskFailure {
  int task = -1;
  std::string reason;
  bool no_progress = false; ///< the task threw NoProgress
};

class ProcessPool {
public:
  /// `report` is called in the parent about every `report_period_s` with each task's progress in [0, 1]
  /// and the number of finished tasks.
  using Reporter = std::function<void(const std::vector<double>& progress, int finished)>;
  /// The task body, run in a child. `progress(f)` publishes its completion fraction.
  using Task = std::function<std::string(int task, const std::function<void(double)>& progress)>;

  explicit ProcessPool(int parallel) : parallel_(parallel < 1 ? 1 : parallel) {}

  /// Runs tasks 0..count-1 and returns their results in order. Throws std::runtime_error naming the
  /// first task that failed (exception, crash or non-zero exit) after all children have ended, or
  /// NoProgress with that task's own message when it threw NoProgress.
  std::vector<std::string> map(int count, const Task& task, const Reporter& report = {},
                               double report_period_s = 0.5) const;

private:
  int parallel_;
};

/// Runs `body` in a forked child and returns what it returned: the child's changes to memory (a
/// SimGrid clock moved by Platform::rates_isolated, caches, anything) vanish with it. Throws
/// std::runtime_error with the child's exception message when it failed.
std::string run_in_child(const std::function<std::string()>& body);

} // namespace dcsim::sim
