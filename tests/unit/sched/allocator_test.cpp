#include "models/sched/allocator.hpp"

#include <catch2/catch.hpp>

#include <random>

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
  CHECK(fx.alloc.owner(hardware::GpuIndex{63}) == sched::JobId{0});
  CHECK(fx.alloc.owner(hardware::GpuIndex{64}) == sched::JobId{-1}); // in-rack spare
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
  CHECK(fx.alloc.owner(hardware::GpuIndex{5}) == sched::JobId{-1});
  CHECK(fx.alloc.owner(hardware::GpuIndex{64}) == sched::JobId{0});
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
        free_here += fx.alloc.usable(g) && fx.alloc.owner(hardware::GpuIndex{g}).value() < 0;
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

TEST_CASE("the census kept at every change equals a recount from scratch, over random histories", "[unit][allocator]") {
  // Random failures, repairs, drains, placements, releases, resizes and recoveries on 12 racks (2 spare,
  // 1 cold); after every operation the incrementally kept census must equal one computed by definition.
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  h.rack.spare_gpus = 8;
  const hardware::Layout layout(h, hardware::ClusterSpec{12});
  failure::GpuHealth health(layout.gpus());
  sched::Allocator alloc(layout, health, 2, 1);
  health.set_transition_hook([&](int g, bool up) { alloc.on_health_change(g, up); });
  auto scratch = [&] {
    sched::Allocator::Census c;
    for (int d = 0; d < layout.domains(); ++d) {
      const auto r = layout.domain_range(d);
      int usable = 0, held = 0, free_here = 0;
      bool idle_role = false; // an unowned usable GPU of an idle (not spare, not cold) domain
      for (int g = r.first; g < r.end(); ++g) {
        usable += alloc.usable(g);
        held += alloc.usable(g) && alloc.owner(hardware::GpuIndex{g}).value() >= 0;
        if (alloc.usable(g) && alloc.owner(hardware::GpuIndex{g}).value() < 0) {
          ++free_here;
          idle_role |= alloc.category(g) == Category::IDLE;
        }
      }
      ++c.domain_states[static_cast<std::size_t>(alloc.domain_state(d))];
      c.healthy_allocated_gpus += held;
      if (alloc.domain_job(d) < 0 && !idle_role) continue; // the spare pool (or nothing free)
      c.fragmentation.second += free_here;
      if (alloc.domain_job(d) >= 0 || usable < 64) c.fragmentation.first += free_here;
    }
    return c;
  };
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> gpu(0, layout.gpus() - 1), op(0, 7), job(0, 2);
  std::vector<hardware::GpuRange> drains;
  for (int step = 0; step < 3000; ++step) {
    const int g = gpu(rng);
    switch (op(rng)) {
    case 0:
    case 1: if (health.up(g)) health.fail({g, 1}); break;
    case 2: if (!health.up(g)) health.repair({g, 1}); break;
    case 3: // start a drain, or end the oldest one (drains nest)
      if (step % 2 == 0 || drains.empty()) {
        drains.push_back({g, 4 > layout.gpus() - g ? 1 : 4});
        alloc.set_draining(drains.back(), true);
      } else {
        alloc.set_draining(drains.front(), false);
        drains.erase(drains.begin());
      }
      break;
    case 4: { const int j = job(rng); if (alloc.job_gpu_count(j) == 0) alloc.place(j, 64 * (1 + j)); break; }
    case 5: alloc.release(job(rng)); break;
    case 6: { const int j = job(rng); if (alloc.job_gpu_count(j) > 0) alloc.resize(j, step % 3 == 0 ? -1 : 1); break; }
    case 7: alloc.recover(job(rng)); if (step % 500 == 0) alloc.activate_cold(); break;
    }
    const auto expected = scratch();
    INFO("step " << step);
    REQUIRE(alloc.census().domain_states == expected.domain_states);
    REQUIRE(alloc.census().healthy_allocated_gpus == expected.healthy_allocated_gpus);
    REQUIRE(alloc.census().fragmentation == expected.fragmentation);
  }
}

TEST_CASE("drains nest: a GPU two drains hold is usable again only when both have ended", "[unit][allocator]") {
  Fixture fx;
  const hardware::GpuRange rack2{72 * 2, 72};
  fx.alloc.set_draining(rack2, true);          // e.g. the world's planned repair
  fx.alloc.set_draining({72 * 2, 4}, true);    // and the facility's drain of the same rack's first tray
  CHECK_FALSE(fx.alloc.usable(72 * 2));
  fx.alloc.set_draining(rack2, false);         // the planned repair ends first
  CHECK_FALSE(fx.alloc.usable(72 * 2));        // still held by the facility's drain
  CHECK(fx.alloc.usable(72 * 2 + 4));          // held by nobody
  fx.alloc.set_draining({72 * 2, 4}, false);
  CHECK(fx.alloc.usable(72 * 2));
  CHECK_THROWS_WITH(fx.alloc.set_draining({72 * 2, 4}, false),
                    "Allocator::set_draining: ending a drain of a GPU that is not draining");
}

TEST_CASE("gpu_at_rank is job_gpus at that rank, after swaps and moves, without building it", "[unit][allocator]") {
  Fixture fx;
  fx.alloc.place(0, 128);
  fx.health.fail({5, 1}); // replaced by GPU 64 at the same rank
  fx.alloc.recover(0);
  const std::vector<int> gpus = fx.alloc.job_gpus(0);
  REQUIRE(gpus.size() == 128);
  for (int r = 0; r < 128; ++r)
    CHECK(fx.alloc.gpu_at_rank(0, r) == gpus[static_cast<std::size_t>(r)]);
  CHECK(fx.alloc.gpu_at_rank(0, 5) == 64);
  CHECK(fx.alloc.gpu_at_rank(0, 128) == -1);
  CHECK(fx.alloc.gpu_at_rank(0, -1) == -1);
  CHECK(fx.alloc.gpu_at_rank(1, 0) == -1); // no such job
}

TEST_CASE("a job's ranks: which are up, and which a failure struck", "[unit][allocator]") {
  Fixture fx;
  REQUIRE(fx.alloc.place(0, 128)); // racks 0 and 1, 64 GPUs of each: ranks 0-63 on rack 0, 64-127 on rack 1
  REQUIRE(fx.alloc.place(1, 64));  // rack 2
  const sched::JobId job{0};
  fx.health.fail({70, 1}); // rack 0's 71st GPU: not one of the job's 64, a spare of the rack
  fx.health.fail({72 + 3, 1}); // rack 1's fourth GPU: rank 67 (before its rack's spare replaces it)
  CHECK(fx.alloc.ranks_up(job, {0, 67, 127, 128, -1}) == std::vector<bool>{true, false, true, false, false});
  // A failure of GPUs 2, 75 (rank 67), 144 (job 1's) and 70 (nobody's): job 0's ranks in the order struck.
  CHECK(fx.alloc.ranks_held(job, {75, 2, 144, 70}) == std::vector<int>{67, 2});
  CHECK(fx.alloc.ranks_held(sched::JobId{1}, {75, 2, 144, 70}) == std::vector<int>{0});
  // Recovery swaps rack 1's spare in at rank 67: the rank is up again, held by the spare.
  REQUIRE(fx.alloc.recover(0));
  CHECK(fx.alloc.ranks_up(job, {67}) == std::vector<bool>{true});
  CHECK(fx.alloc.ranks_held(job, {75}).empty());
}
