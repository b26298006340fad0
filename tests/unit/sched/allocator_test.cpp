#include "models/sched/allocator.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using sched::Category;

namespace {
struct Fixture {
  hardware::Layout layout{[] {
                            hardware::HardwareSpec h;
                            h.rack.kind = hardware::RackKind::NVL72;
                            h.rack.spare_gpus = 8;
                            return h;
                          }(),
                          hardware::ClusterSpec{4}}; // racks 0-3; rack 3 is the spare pool
  failure::GpuHealth health{layout.gpus()};
  sched::Allocator alloc{layout, health, 1};
  std::vector<std::string> moves;
  Fixture() {
    health.set_transition_hook([this](int g, bool up) { alloc.on_health_change(g, up); });
    alloc.set_move_hook([this](int, const std::string& kind, const std::string& from, const std::string& to) {
      moves.push_back(kind + " " + from + " -> " + to);
    });
  }
  int count(Category c) const {
    int n = 0;
    for (int g = 0; g < layout.gpus(); ++g)
      n += alloc.category(g) == c;
    return n;
  }
};
} // namespace

TEST_CASE("a job takes whole racks and uses 64 of each 72 GPUs", "[unit][allocator]") {
  Fixture fx;
  REQUIRE(fx.alloc.place(0, 128));
  CHECK(fx.alloc.job_domains(0) == std::vector<int>{0, 1});
  CHECK(fx.alloc.owner(63) == 0);
  CHECK(fx.alloc.owner(64) == -1); // in-rack spare
  CHECK(fx.count(Category::ALLOCATED) == 128);
  CHECK(fx.count(Category::SPARE) == 16 + 72); // in-rack spares of racks 0, 1 + the spare rack
  CHECK(fx.count(Category::IDLE) == 72);
  CHECK(fx.alloc.schedulable_domains() == 4);
}

TEST_CASE("a failed GPU is replaced by a healthy spare of its own rack", "[unit][allocator]") {
  Fixture fx;
  fx.alloc.place(0, 128);
  fx.health.fail({5, 1});
  CHECK_FALSE(fx.alloc.job_healthy(0));
  CHECK(fx.alloc.recover(0));
  CHECK(fx.alloc.owner(5) == -1);
  CHECK(fx.alloc.owner(64) == 0);
  CHECK(fx.alloc.category(5) == Category::REPAIR);
  CHECK(fx.moves == std::vector<std::string>{"gpu_swap rack0000/tray01/gpu1 -> rack0000/tray16/gpu0"});
}

TEST_CASE("when in-rack spares run out the job moves to the spare rack, then idle racks, then waits",
          "[unit][allocator]") {
  Fixture fx;
  fx.alloc.place(0, 128);
  // Three trays of rack 0 fail: 12 GPUs down, only 8 in-rack spares.
  for (int t : {0, 1, 2})
    fx.health.fail(fx.layout.unit_range(hardware::Scope::TRAY, t));
  CHECK(fx.alloc.recover(0));
  CHECK(fx.alloc.job_domains(0) == std::vector<int>{3, 1}); // the spare rack first
  CHECK(fx.moves.back() == "domain_swap rack0000 -> rack0003");
  CHECK(fx.count(Category::ALLOCATED) == 128);
  // Rack 0 joined the spare pool in place of rack 3.
  CHECK(fx.alloc.category(71) == Category::SPARE);
  // Rack 1 fails: the only free rack with 64 healthy GPUs is the idle rack 2.
  fx.health.fail(fx.layout.unit_range(hardware::Scope::RACK, 1));
  CHECK(fx.alloc.recover(0));
  CHECK(fx.alloc.job_domains(0) == std::vector<int>{3, 2});
  // Rack 2 fails too: rack 0 has 60 healthy GPUs, rack 1 none: the job waits, holding its GPUs.
  fx.health.fail(fx.layout.unit_range(hardware::Scope::RACK, 2));
  CHECK_FALSE(fx.alloc.recover(0));
  CHECK(fx.count(Category::ALLOCATED) == 128);
  // A tray of rack 0 comes back: 64 healthy GPUs there again.
  fx.health.repair(fx.layout.unit_range(hardware::Scope::TRAY, 0));
  CHECK(fx.alloc.recover(0));
  CHECK(fx.alloc.job_domains(0) == std::vector<int>{3, 0});
  CHECK(fx.alloc.job_healthy(0));
}

TEST_CASE("fragmentation and lifecycle states agree with a GPU-by-GPU count", "[unit][allocator]") {
  // Brute force, by definition: stranded = usable free GPUs in job domains or in domains that cannot host
  // a full share; free = usable free GPUs outside the spare pool.
  Fixture fx;
  auto brute = [&] {
    int stranded = 0, free_gpus = 0;
    for (int d = 0; d < 3; ++d) { // rack 3 is the spare pool
      const auto r = fx.layout.domain_range(d);
      int free_here = 0, usable_here = 0;
      for (int g = r.first; g < r.end(); ++g) {
        usable_here += fx.alloc.usable(g);
        free_here += fx.alloc.usable(g) && fx.alloc.owner(g) < 0;
      }
      free_gpus += free_here;
      if (fx.alloc.domain_job(d) >= 0 || usable_here < 64) stranded += free_here;
    }
    return std::pair{stranded, free_gpus};
  };
  REQUIRE(fx.alloc.place(0, 64));
  CHECK(fx.alloc.fragmentation() == brute()); // rack 0's 8 spares stranded, racks 1-2 free
  CHECK(fx.alloc.fragmentation() == std::pair{8, 8 + 144});
  fx.health.fail({72 + 3, 1});       // rack 1 (idle) loses a GPU: 71 up, still schedulable
  fx.health.fail({64 + 3, 1});       // an in-rack spare of rack 0 fails
  fx.health.fail({0, 1});            // a job GPU down
  fx.alloc.set_draining({72 * 2, 10}, true); // rack 2 drained below a full share
  CHECK(fx.alloc.fragmentation() == brute());
  CHECK(fx.alloc.recover(0));        // in-rack swap
  CHECK(fx.alloc.fragmentation() == brute());
  const auto states = fx.alloc.domain_states();
  CHECK(states[static_cast<std::size_t>(sched::Allocator::DomainState::PRODUCTION)] == 1);
  CHECK(states[static_cast<std::size_t>(sched::Allocator::DomainState::IDLE)] == 1);
  CHECK(states[static_cast<std::size_t>(sched::Allocator::DomainState::DOWN)] == 1);
  CHECK(states[static_cast<std::size_t>(sched::Allocator::DomainState::SPARE)] == 1);
  CHECK(fx.alloc.healthy_allocated_gpus() == 64);
}
