#include "sim/once_per_date.hpp"

#include <catch2/catch.hpp>

#include <string>

using dcsim::sim::EventQueue;
using dcsim::sim::OncePerDate;

TEST_CASE("once per date: requests at one date run the action once, after that date's queued events",
          "[unit][once_per_date]") {
  EventQueue q;
  std::string order;
  OncePerDate once(q, [&] { order += 'R'; });
  q.at(10, [&] {
    order += 'a';
    once.request();
    once.request();
  });
  q.at(10, [&] {
    order += 'b';
    once.request(); // still due: adds nothing
    CHECK(once.due());
  });
  q.at(20, [&] { order += 'c'; });
  q.run_until(100);
  CHECK(order == "abRc");
  CHECK_FALSE(once.due());
  CHECK(q.events_run() == 4);
}

TEST_CASE("once per date: a request after the action has run schedules it again, at the same date or later",
          "[unit][once_per_date]") {
  EventQueue q;
  std::string order;
  int runs = 0;
  OncePerDate* self = nullptr;
  OncePerDate once(q, [&] {
    order += "R" + std::to_string(q.now());
    if (++runs == 1) self->request(); // from within the action: runs again at this date
  });
  self = &once;
  q.at(5, [&] { once.request(); });
  q.at(7, [&] { once.request(); });
  q.run_until(10);
  CHECK(order == "R5R5R7");
  CHECK(runs == 3);
}
