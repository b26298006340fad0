#include "sim/event_queue.hpp"

#include <catch2/catch.hpp>

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
