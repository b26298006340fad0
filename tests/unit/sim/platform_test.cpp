#include "sim/platform.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace dcsim::sim;

namespace {
double simgrid_clock() { return simgrid::s4u::Engine::get_clock(); }
} // namespace

TEST_CASE("events run at their exact dates; both clocks end at the run's end", "[unit][platform]") {
  Platform p("test");
  p.add_host("a", 1e9);
  p.seal();
  EventQueue q;
  p.bind(q);
  std::vector<Tick> seen;
  q.at(to_ticks(1.5), [&] { seen.push_back(q.now()); });
  q.at(to_ticks(3600), [&] {
    seen.push_back(q.now());
    q.after(to_ticks(0.25), [&] { seen.push_back(q.now()); });
  });
  q.at(to_ticks(7200), [&] { seen.push_back(-1); });   // exactly at the end: still runs
  q.at(to_ticks(7200.5), [&] { seen.push_back(-2); }); // after the end: never runs
  p.run_until(to_ticks(7200));
  CHECK(seen == std::vector<Tick>{to_ticks(1.5), to_ticks(3600), to_ticks(3600.25), -1});
  CHECK(q.now() == to_ticks(7200));
  CHECK(simgrid_clock() == 7200.0);
}

TEST_CASE("transfers interleave with events: latency + size / bandwidth on the routed links", "[unit][platform]") {
  Platform p("test");
  const int a = p.add_host("a", 1e9);
  const int b = p.add_host("b", 1e9);
  const auto l = p.add_duplex_link("a-b", 1e9, 1e-3); // 1 GB/s, 1 ms
  p.set_router([&](int src, int, std::vector<int>& links, double&) { links.push_back(src == a ? l.up : l.down); });
  p.seal();
  EventQueue q;
  p.bind(q);
  std::vector<std::pair<std::string, double>> log;
  auto note = [&](const std::string& what) { log.emplace_back(what, to_seconds(q.now())); };
  q.at(to_ticks(1.0), [&] {
    note("start");
    p.transfer(a, b, 5e8, [&](bool ok) {
      CHECK(ok);
      note("done");
      CHECK(simgrid_clock() == Approx(1.501).epsilon(1e-12));
      q.after(to_ticks(0.5), [&] { note("after"); });
    });
    CHECK(p.transfers_in_flight() == 1);
    CHECK(simgrid_clock() == 1.0); // brought forward before the transfer started
  });
  q.at(to_ticks(1.2), [&] {
    note("event");
    CHECK(simgrid_clock() == Approx(1.2).epsilon(1e-12)); // SimGrid owns the clock while the transfer runs
  });
  p.run_until(to_ticks(10));
  // CM02 without TCP corrections: 1 ms latency + 5e8 B / 1e9 B/s = 0.501 s after the start.
  REQUIRE(log.size() == 4);
  CHECK(log[0] == std::make_pair(std::string("start"), 1.0));
  CHECK(log[1] == std::make_pair(std::string("event"), 1.2));
  CHECK(log[2].first == "done");
  CHECK(log[2].second == Approx(1.501).epsilon(1e-9));
  CHECK(log[3].first == "after");
  CHECK(log[3].second == Approx(2.001).epsilon(1e-9));
  CHECK(p.transfers_in_flight() == 0);
}

TEST_CASE("a transfer over a link that is turned off fails", "[unit][platform]") {
  Platform p("test");
  const int a = p.add_host("a", 1e9);
  const int b = p.add_host("b", 1e9);
  const auto l = p.add_duplex_link("a-b", 1e9, 0);
  p.set_router([&](int, int, std::vector<int>& links, double&) { links.push_back(l.up); });
  p.seal();
  EventQueue q;
  p.bind(q);
  bool finished = false, ok = true;
  q.at(0, [&] { p.transfer(a, b, 1e9, [&](bool success) { finished = true; ok = success; }); });
  q.at(to_ticks(0.5), [&] { p.link(l.up)->turn_off(); });
  p.run_until(to_ticks(5));
  CHECK(finished);
  CHECK_FALSE(ok);
  CHECK(p.host_on(b));
  p.set_host_on(b, false);
  CHECK_FALSE(p.host_on(b));
}

TEST_CASE("host states reach SimGrid before it computes, not before", "[unit][platform]") {
  Platform p("test");
  const int a = p.add_host("a", 1e9);
  const int b = p.add_host("b", 1e9);
  const auto l = p.add_duplex_link("a-b", 1e9, 0);
  p.set_router([&](int, int, std::vector<int>& links, double&) { links.push_back(l.up); });
  p.seal();
  EventQueue q;
  p.bind(q);
  bool seen_on_at_1 = false, result = true;
  q.at(to_ticks(1), [&] {
    p.set_host_on(b, false);
    seen_on_at_1 = p.host(b)->is_on(); // not applied yet: nothing in SimGrid can observe it
    CHECK_FALSE(p.host_on(b));
  });
  q.at(to_ticks(2), [&] { p.transfer(a, b, 1e6, [&](bool ok) { result = ok; }); }); // applied before starting
  p.run_until(to_ticks(3));
  CHECK(seen_on_at_1);
  CHECK_FALSE(result); // the destination is off
  CHECK_FALSE(p.host(b)->is_on());
}
