// The job scheduler (models/sched/scheduler.hpp) on 4 GB200 NVL72 racks (64 usable GPUs each, no spare
// racks) with a real allocator and an engine-free event queue: jobs are callbacks that record what they
// are told, and "reaching a checkpoint" is the test calling the stop callback. No replica, no run.
#include "models/sched/scheduler.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace dcsim;

namespace {

struct Toy {
  hardware::Layout layout{[] {
                            hardware::HardwareSpec h;
                            h.rack.kind = hardware::RackKind::NVL72;
                            h.rack.spare_gpus = 8;
                            return h;
                          }(),
                          hardware::ClusterSpec{4}};
  failure::GpuHealth health{layout.gpus()};
  sched::Allocator alloc{layout, health, 0};
  sim::EventQueue queue;
  sim::EventLog log;
  sched::Scheduler scheduler{layout, alloc, queue, log};
  std::vector<std::string> said; ///< "name place 128", "name stop", "name release", "name resize 64"
  std::map<std::string, std::function<void()>> at_checkpoint; ///< pending stop callbacks by job

  sched::JobId add(const std::string& name, int priority, double arrival_h, int gpus, int min_gpus = -1) {
    sched::JobRequest r;
    r.name = name;
    r.priority = priority;
    r.arrival = sim::hours_to_ticks(arrival_h);
    r.gpus = gpus;
    r.min_gpus = min_gpus < 0 ? gpus : min_gpus;
    r.control.place = [this, name](int g) { said.push_back(name + " place " + std::to_string(g)); };
    r.control.request_stop = [this, name](std::function<void()> done) {
      said.push_back(name + " stop");
      at_checkpoint[name] = std::move(done);
    };
    r.control.release = [this, name] { said.push_back(name + " release"); };
    r.control.resize = [this, name](int g) { said.push_back(name + " resize " + std::to_string(g)); };
    return scheduler.add(std::move(r));
  }
  void checkpoint(const std::string& name) {
    auto done = std::move(at_checkpoint.at(name));
    at_checkpoint.erase(name);
    done();
  }
};

} // namespace

TEST_CASE("scheduler: jobs at t = 0 are placed in order on whole domains; a job that does not fit waits",
          "[unit][sched]") {
  Toy t;
  const sched::JobId a = t.add("a", 0, 0, 128); // 2 racks
  const sched::JobId b = t.add("b", 0, 0, 100); // ceil(100 / 64) = 2 racks
  const sched::JobId c = t.add("c", 0, 0, 64);  // nothing left
  t.scheduler.start();
  CHECK(t.said == std::vector<std::string>{"a place 128", "b place 100"});
  CHECK(t.alloc.job_domain_count(a.value()) == 2);
  CHECK(t.alloc.job_domain_count(b.value()) == 2);
  CHECK(t.scheduler.queued() == 1);
  CHECK(!t.scheduler.running(c));
  t.scheduler.completed(a); // its 2 racks are free: c takes one
  CHECK(t.said.back() == "c place 64");
  CHECK(t.scheduler.queued() == 0);
}

TEST_CASE("scheduler: a higher-priority arrival preempts the lowest-priority, latest job at its checkpoint",
          "[unit][sched]") {
  // b (priority 1, placed first) and a (priority 0) hold 2 racks each; c (priority 5, 2 racks) arrives at 1 h: a is the
  // victim (lowest priority), asked to stop; c is placed only once a has reached its checkpoint and
  // released its racks. a queues again and returns when c completes.
  Toy t;
  t.add("a", 0, 0, 128);
  t.add("b", 1, 0, 128);
  const sched::JobId c = t.add("c", 5, 1, 128);
  t.scheduler.start();
  t.queue.run_until(sim::hours_to_ticks(1));
  // Queued jobs are placed by priority: b (1) before a (0).
  CHECK(t.said == std::vector<std::string>{"b place 128", "a place 128", "a stop"});
  CHECK(t.scheduler.preemptions() == 1);
  CHECK(!t.scheduler.running(c));
  t.checkpoint("a");
  CHECK(t.said ==
        std::vector<std::string>{"b place 128", "a place 128", "a stop", "a release", "c place 128"});
  CHECK(t.scheduler.queued() == 1); // a
  t.scheduler.completed(c);
  CHECK(t.said.back() == "a place 128");
}

TEST_CASE("scheduler: an elastic job starts on what is free above its floor", "[unit][sched]") {
  // b holds 3 racks; a asks 4 racks but accepts a quarter (64 GPUs = 1 rack): placed at 64 GPUs.
  Toy t;
  t.add("b", 0, 0, 192);
  t.add("a", 0, 0, 256, 64);
  t.scheduler.start();
  CHECK(t.said == std::vector<std::string>{"b place 192", "a place 64"});
}

TEST_CASE("scheduler: a blocked job keeps its free domains from lower-priority backfill", "[unit][sched]") {
  // a (priority 0) holds 3 racks from t = 0. At 1 h big (priority 5, 4 racks) and small (priority 0, 1
  // rack) arrive together; big goes first (priority): 1 rack free of 4 needed, so a is asked to stop and
  // big reserves the free rack; small must not take it (it would delay big). Once a reaches its checkpoint
  // big takes all 4 racks; small still waits.
  Toy t;
  t.add("a", 0, 0, 192);
  t.add("big", 5, 1, 256);
  t.add("small", 0, 1, 64);
  t.scheduler.start();
  t.queue.run_until(sim::hours_to_ticks(1));
  CHECK(t.said == std::vector<std::string>{"a place 192", "a stop"});
  t.checkpoint("a");
  CHECK(t.said == std::vector<std::string>{"a place 192", "a stop", "a release", "big place 256"});
  CHECK(t.scheduler.queued() == 2); // a and small
}
