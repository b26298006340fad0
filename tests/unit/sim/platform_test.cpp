#include "sim/platform.hpp"
#include "sim/process_pool.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace dcsim::sim;

namespace {
double simgrid_clock() { return Platform::clock_s(); }
} // namespace

TEST_CASE("events run at their exact dates; both clocks end at the run's end", "[unit][platform]") {
  Platform p("test");
  p.add_host("a");
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
  const int a = p.add_host("a");
  const int b = p.add_host("b");
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
  const int a = p.add_host("a");
  const int b = p.add_host("b");
  const auto l = p.add_duplex_link("a-b", 1e9, 0);
  p.set_router([&](int, int, std::vector<int>& links, double&) { links.push_back(l.up); });
  p.seal();
  EventQueue q;
  p.bind(q);
  bool finished = false, ok = true;
  q.at(0, [&] { p.transfer(a, b, 1e9, [&](bool success) { finished = true; ok = success; }); });
  q.at(to_ticks(0.5), [&] { p.set_link_on(l.up, false); });
  p.run_until(to_ticks(5));
  CHECK(finished);
  CHECK_FALSE(ok);
  CHECK_FALSE(p.link_on(l.up));
  CHECK(p.link_on(l.down));
}

TEST_CASE("rates_isolated gives each flow its max-min share and leaves the event queue alone", "[unit][platform]") {
  // Hosts a, b, c, d. Links: shared (1 GB/s) carries a->b and c->b; own (3 GB/s) carries c->d alone;
  // cut (off) carries a->d. Max-min: the shared link's two flows get 0.5 GB/s each; c->d, limited
  // by own only (c's flows share no link with each other), gets 3 GB/s; a->d gets nothing.
  Platform p("test");
  const int a = p.add_host("a"), b = p.add_host("b"), c = p.add_host("c"), d = p.add_host("d");
  const auto shared = p.add_duplex_link("shared", 1e9, 1e-6);
  const auto own = p.add_duplex_link("own", 3e9, 1e-6);
  const auto cut = p.add_duplex_link("cut", 1e9, 1e-6);
  p.set_router([&](int src, int dst, std::vector<int>& links, double&) {
    if (dst == b) links.push_back(shared.up);
    else if (src == c) links.push_back(own.up);
    else links.push_back(cut.up);
  });
  p.seal();
  double latency_s = 0;
  CHECK(p.route_link_count(a, b, latency_s) == 1);
  CHECK(latency_s == Approx(1e-6));
  CHECK(p.host_name(c) == "c");
  p.set_link_on(cut.up, false);
  const std::vector<double> rates =
      p.rates_isolated({{a, b, 1e12}, {c, b, 1e12}, {c, d, 1e12}, {a, d, 1e12}}, 1e-3, 1e-3);
  REQUIRE(rates.size() == 4);
  CHECK(rates[0] == Approx(0.5e9).epsilon(1e-9));
  CHECK(rates[1] == Approx(0.5e9).epsilon(1e-9));
  CHECK(rates[2] == Approx(3e9).epsilon(1e-9));
  CHECK(rates[3] == 0.0);
  CHECK_THROWS_AS(p.rates_isolated({{a, b, 1e12}}, 1e-3, 1e-3), std::logic_error); // once per process
}

TEST_CASE("a probe forked while a transfer is in flight measures its own flows; the replica goes on", "[unit][platform]") {
  // A replica's storage transfer (a -> b, 1 GB/s) is in flight when one of its events asks for fabric
  // rates (c -> d on its own 2 GB/s link) in a forked child, as FabricCommModel's probes do; that event is
  // fired from inside SimGrid's run (the transfer owns the clock), so the child runs SimGrid re-entrantly. The child's rates are the max-min ones,
  // the transfer's completion does not reach the child's queue, and in this process the transfer ends
  // at its date as if nothing had happened.
  Platform p("test");
  const int a = p.add_host("a"), b = p.add_host("b"), c = p.add_host("c"), d = p.add_host("d");
  const auto ab = p.add_duplex_link("ab", 1e9, 0);
  const auto cd = p.add_duplex_link("cd", 2e9, 0);
  p.set_router([&](int src, int, std::vector<int>& links, double&) { links.push_back(src == a ? ab.up : cd.up); });
  p.seal();
  EventQueue q;
  p.bind(q);
  double done_at = -1;
  std::string probed;
  q.at(to_ticks(1.0), [&] { p.transfer(a, b, 4e9, [&](bool ok) { done_at = ok ? to_seconds(q.now()) : -2; }); });
  q.at(to_ticks(2.0), [&] {
    probed = run_in_child([&] {
      const auto rates = p.rates_isolated({{c, d, 1e15}}, 1e-3, 1.0); // runs past the transfer's end
      return std::to_string(rates.at(0));
    });
  });
  p.run_until(to_ticks(100));
  CHECK(std::stod(probed) == Approx(2e9).epsilon(1e-9));
  CHECK(done_at == Approx(5.0).margin(1e-6)); // 4 GB at 1 GB/s from 1 s
}

TEST_CASE("a link slowed during a transfer slows it; sped up, it never lifts a transfer above its start's rate",
          "[unit][platform]") {
  // SimGrid 3.32 (CM02) bounds a flow by the narrowest bandwidth on its route when it starts: later
  // increases do not lift that bound (docs/architecture.md, SimGrid). 4 GB over a 1 GB/s link from 0 s;
  // at 1 s the link drops to 0.5 GB/s, at 3 s it is back to 1 GB/s: 1 GB by 1 s, 1 GB more by 3 s, the
  // last 2 GB by 5 s.
  Platform p("test");
  const int a = p.add_host("a"), b = p.add_host("b");
  const auto l = p.add_duplex_link("ab", 1e9, 0);
  p.set_router([&](int, int, std::vector<int>& links, double&) { links.push_back(l.up); });
  p.seal();
  EventQueue q;
  p.bind(q);
  double done_at = -1;
  q.at(0, [&] { p.transfer(a, b, 4e9, [&](bool ok) { done_at = ok ? to_seconds(q.now()) : -2; }); });
  q.at(to_ticks(1.0), [&] { p.set_link_bandwidth(l.up, 0.5e9); });
  q.at(to_ticks(3.0), [&] { p.set_link_bandwidth(l.up, 1e9); });
  p.run_until(to_ticks(100));
  CHECK(done_at == Approx(5.0).margin(1e-6));
  // Started on the slow link (0.5 GB/s), it keeps that rate when the link is sped up at 102 s: 108 s,
  // not the 105 s a flow free to speed up would take.
  q.at(to_ticks(100), [&] { p.set_link_bandwidth(l.up, 0.5e9); });
  q.at(to_ticks(100), [&] { p.transfer(a, b, 4e9, [&](bool ok) { done_at = ok ? to_seconds(q.now()) : -2; }); });
  q.at(to_ticks(102.0), [&] { p.set_link_bandwidth(l.up, 1e9); });
  p.run_until(to_ticks(200));
  CHECK(done_at == Approx(108.0).margin(1e-6));
}
