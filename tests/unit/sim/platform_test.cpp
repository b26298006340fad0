#include "sim/platform.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace dcsim::sim;

TEST_CASE("the event queue runs on SimGrid's clock at exact dates", "[unit][platform]") {
  Platform p("test");
  p.add_host("a", 1e9);
  p.seal();
  EventQueue q;
  p.bind(q);
  std::vector<double> seen;
  q.at(to_ticks(1.5), [&] { seen.push_back(simgrid::s4u::Engine::get_clock()); });
  q.at(to_ticks(3600), [&] {
    seen.push_back(simgrid::s4u::Engine::get_clock());
    q.after(to_ticks(0.25), [&] { seen.push_back(simgrid::s4u::Engine::get_clock()); });
  });
  q.at(to_ticks(7200), [&] { seen.push_back(-1); }); // exactly at the end: still runs
  q.at(to_ticks(7200.5), [&] { seen.push_back(-2); }); // after the end: never runs
  p.run_until(to_ticks(7200));
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == 1.5);
  CHECK(seen[1] == 3600.0);
  CHECK(seen[2] == 3600.25);
  CHECK(seen[3] == -1);
}

TEST_CASE("routes come from the model's function; a transfer takes latency + size / bandwidth", "[unit][platform]") {
  Platform p("test");
  const int a = p.add_host("a", 1e9);
  const int b = p.add_host("b", 1e9);
  const auto l = p.add_duplex_link("a-b", 1e9, 1e-3); // 1 GB/s, 1 ms
  p.set_router([&](int src, int dst, std::vector<int>& links, double& latency) {
    links.push_back(src == a ? l.up : l.down);
    (void)dst;
    latency += 0.0;
  });
  p.seal();
  EventQueue q;
  p.bind(q);
  double done = -1;
  simgrid::s4u::CommPtr comm;
  simgrid::s4u::Activity::on_completion_cb([&](simgrid::s4u::Activity const& act) {
    if (&act == comm.get()) done = simgrid::s4u::Engine::get_clock();
  });
  q.at(0, [&] { comm = simgrid::s4u::Comm::sendto_async(p.host(a), p.host(b), 5e8); });
  p.run_until(to_ticks(10));
  // CM02 without TCP corrections: 1 ms latency + 5e8 B / 1e9 B/s = 0.501 s.
  CHECK(done == Approx(0.501).epsilon(1e-9));
  CHECK(p.host_on(b));
  p.set_host_on(b, false);
  CHECK_FALSE(p.host_on(b));
}
