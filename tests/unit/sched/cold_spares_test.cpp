// sched::ColdSpares on an allocator of 4 NVL72 racks (rack 3 the warm spare, rack 2 the one cold spare),
// driven by its own event queue: one request at a time, one activation per cold domain, cold_swap_h later.
#include "models/sched/cold_spares.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

namespace {
struct Fixture {
  hardware::Layout layout{[] {
                            hardware::HardwareSpec h;
                            h.rack.kind = hardware::RackKind::NVL72;
                            h.rack.spare_gpus = 8;
                            return h;
                          }(),
                          hardware::ClusterSpec{4}};
  failure::GpuHealth health{layout.gpus()};
  sched::Allocator alloc{layout, health, 1, 1};
  sim::EventQueue queue;
  sim::EventLog log;
  int activated = 0;
  sched::ColdSpares cold{alloc, queue, log, 2.0, [this] { ++activated; }};
};
} // namespace

TEST_CASE("cold spares: a request brings one cold domain into the warm pool cold_swap_h later", "[unit][sched]") {
  Fixture fx;
  REQUIRE(fx.alloc.cold_domains() == 1);
  fx.cold.request();
  fx.cold.request(); // one is on its way: nothing more
  CHECK(fx.cold.pending() == 1);
  REQUIRE(fx.log.records().size() == 1);
  CHECK(fx.log.records().front().kind == "cold_spare_requested");
  CHECK(fx.log.records().front().detail == "2 h");
  fx.queue.run_until(sim::hours_to_ticks(2.0) - 1);
  CHECK(fx.activated == 0); // not before 2 h
  CHECK(fx.alloc.cold_domains() == 1);
  fx.queue.run_until(sim::hours_to_ticks(2.0));
  CHECK(fx.activated == 1);
  CHECK(fx.cold.activations() == 1);
  CHECK(fx.cold.pending() == 0);
  CHECK(fx.alloc.cold_domains() == 0);
  CHECK(fx.alloc.domain_state(2) == sched::Allocator::DomainState::SPARE);
}

TEST_CASE("cold spares: nothing is asked once none is left", "[unit][sched]") {
  Fixture fx;
  fx.cold.request();
  fx.queue.run_until(sim::hours_to_ticks(3.0));
  REQUIRE(fx.cold.activations() == 1);
  fx.cold.request(); // the only cold domain is warm now
  CHECK(fx.cold.pending() == 0);
  CHECK(fx.log.records().size() == 1);
  fx.queue.run_until(sim::hours_to_ticks(10.0));
  CHECK(fx.activated == 1);
}
