#include "sim/event_queue.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <string>

using dcsim::sim::EventQueue;

TEST_CASE("events run in date order, FIFO at equal dates", "[unit][event_queue]") {
  EventQueue q;
  std::string order;
  q.at(20, [&] { order += 'c'; });
  q.at(10, [&] { order += 'a'; });
  q.at(10, [&] { order += 'b'; });
  q.at(10, [&] { q.at(10, [&] { order += 'd'; }); }); // scheduled at "now": after the others of that date
  q.run_until(100);
  CHECK(order == "abdc");
  CHECK(q.now() == 100);
  CHECK(q.events_run() == 5);
}

TEST_CASE("cancelled events never run; cancelling twice is harmless", "[unit][event_queue]") {
  EventQueue q;
  int runs = 0;
  auto id = q.at(5, [&] { ++runs; });
  CHECK(q.pending(id));
  q.cancel(id);
  CHECK(id.empty());
  q.cancel(id);
  q.run_until(10);
  CHECK(runs == 0);
}

TEST_CASE("run_until stops at its date and leaves later events pending", "[unit][event_queue]") {
  EventQueue q;
  int runs = 0;
  q.at(10, [&] { ++runs; });
  q.at(11, [&] { ++runs; });
  q.run_until(10);
  CHECK(runs == 1);
  CHECK(q.next_date() == 11);
}

TEST_CASE("scheduling in the past is a programming error", "[unit][event_queue]") {
  EventQueue q;
  q.run_until(50);
  CHECK_THROWS_AS(q.at(49, [] {}), std::logic_error);
}

TEST_CASE("the head-changed hook fires when the earliest date changes", "[unit][event_queue]") {
  EventQueue q;
  int changes = 0;
  q.set_head_changed_hook([&] { ++changes; });
  auto late = q.at(100, [] {});
  CHECK(changes == 1);
  q.at(200, [] {}); // not the head
  CHECK(changes == 1);
  auto early = q.at(50, [] {});
  CHECK(changes == 2);
  q.cancel(early);
  CHECK(changes == 3);
  q.cancel(late);
  CHECK(changes == 4);
}

TEST_CASE("watchdog: too many events at one date stop the run with NoProgress", "[unit][event_queue]") {
  EventQueue q;
  q.set_watchdog({/*max_events_at_one_date=*/1000, /*window_events=*/1'000'000, /*max_windows=*/1000});
  std::function<void()> again = [&] { q.after(0, again); }; // an event that reschedules itself at now
  q.at(5'000'000, again);
  CHECK_THROWS_AS(q.run_until(10'000'000), dcsim::sim::NoProgress);
  CHECK(q.events_run() == 1000);
  CHECK(q.now() == 5'000'000);
  try {
    EventQueue r;
    r.set_watchdog({1000, 1'000'000, 1000});
    std::function<void()> loop = [&] { r.after(0, loop); };
    r.at(5'000'000, loop);
    r.run_until(10'000'000);
  } catch (const dcsim::sim::NoProgress& e) {
    CHECK(std::string(e.what()) == "1000 events fired at t = 5.000000 s of simulated time without the clock moving");
  }
}

TEST_CASE("watchdog: a clock that crawls stops the run, a busy but moving one does not", "[unit][event_queue]") {
  // Windows of 100 events must move the clock by at least horizon / 10 = 1 s (horizon 10 s).
  const EventQueue::Watchdog dog{/*max_events_at_one_date=*/1000, /*window_events=*/100, /*max_windows=*/10};
  {
    EventQueue q; // one event every 5 ms: 100 events move the clock 0.5 s < 1 s
    q.set_watchdog(dog);
    std::function<void()> tick = [&] { q.after(5'000, tick); };
    q.at(0, tick);
    try {
      q.run_until(10'000'000);
      FAIL("no NoProgress");
    } catch (const dcsim::sim::NoProgress& e) {
      CHECK(std::string(e.what()) ==
            "100 events moved the clock only 0.5 s (from t = 0.000000 s to 0.500000 s): at that pace the run's "
            "10 s of simulated time would take more than 1e+03 events");
    }
    CHECK(q.events_run() == 100);
  }
  {
    EventQueue q; // one event every 20 ms: 100 events move it 2 s; 500 events run to the end
    q.set_watchdog(dog);
    std::function<void()> tick = [&] { q.after(20'000, tick); };
    q.at(0, tick);
    q.run_until(10'000'000);
    CHECK(q.events_run() == 501);
  }
}
