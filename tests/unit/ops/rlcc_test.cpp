// RLCC workflows: stage sequences, crews, planned drains (models/ops/rlcc.hpp), engine-free.
#include "models/ops/rlcc.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

namespace {
ops::RlccSpec spec() {
  ops::RlccSpec s;
  s.isolate_s = 600;
  s.refill_s = 1800;
  s.burn_in_s = 1800;
  return s;
}
ops::Rlcc::Workflow coolant_repair(sim::Tick& done_at, sim::EventQueue& q) {
  ops::Rlcc::Workflow w;
  w.component = "rack0001";
  w.scope = "rack";
  w.cause = "leak";
  w.coolant = w.burn_in = w.crew = true;
  w.service = sim::hours_to_ticks(4);
  w.done = [&done_at, &q] { done_at = q.now(); };
  return w;
}
} // namespace

TEST_CASE("a coolant repair: isolate, service, refill, burn-in, return", "[unit][rlcc]") {
  // 600 + 14,400 + 1,800 + 1,800 = 18,600 s.
  sim::EventQueue q;
  sim::EventLog log;
  const auto s = spec();
  ops::Rlcc rlcc(s, 0, q, log, {});
  sim::Tick done = -1;
  rlcc.start(coolant_repair(done, q));
  q.run_until(sim::to_ticks(100000));
  CHECK(done == sim::to_ticks(18600));
  std::vector<std::string> kinds;
  for (const auto& e : log.records())
    kinds.push_back(e.kind);
  CHECK(kinds == std::vector<std::string>{"rlcc_isolate", "rlcc_service", "rlcc_refill", "rlcc_burn_in",
                                          "return_to_service"});
  CHECK(log.records()[1].time == sim::to_ticks(600));
  CHECK(log.records()[1].detail == "leak 4.000 h");
  CHECK(rlcc.active() == 0);
}

TEST_CASE("with one crew, the second service waits for the first", "[unit][rlcc]") {
  // Both isolate during 0-600 s; service 1 runs 600-15,000, service 2 15,000-29,400, then refill and burn-in:
  // done at 18,600 and 33,000 s.
  sim::EventQueue q;
  sim::EventLog log;
  const auto s = spec();
  ops::Rlcc rlcc(s, 1, q, log, {});
  sim::Tick first = -1, second = -1;
  rlcc.start(coolant_repair(first, q));
  rlcc.start(coolant_repair(second, q));
  q.run_until(sim::to_ticks(1000));
  CHECK(rlcc.busy_crews() == 1);
  CHECK(rlcc.queued() == 1);
  q.run_until(sim::to_ticks(100000));
  CHECK(first == sim::to_ticks(18600));
  CHECK(second == sim::to_ticks(33000));
}

TEST_CASE("a planned drain: the workflow waits until the workload is off the racks", "[unit][rlcc]") {
  sim::EventQueue q;
  sim::EventLog log;
  const auto s = spec();
  std::vector<int> drained_racks;
  std::function<void()> finish_drain;
  ops::Rlcc::Hooks hooks;
  hooks.drain = [&](const std::vector<int>& racks, bool coolant, std::function<void()> drained) {
    drained_racks = racks;
    CHECK_FALSE(coolant);
    finish_drain = std::move(drained);
  };
  ops::Rlcc rlcc(s, 0, q, log, hooks);
  ops::Rlcc::Workflow w;
  w.component = "rack0002..rack0003";
  w.scope = "rack";
  w.cause = "firmware";
  w.racks = {2, 3};
  w.drain = w.burn_in = true;
  w.service = sim::hours_to_ticks(0.5);
  sim::Tick done = -1;
  w.done = [&] { done = q.now(); };
  rlcc.start(std::move(w));
  CHECK(drained_racks == std::vector<int>{2, 3});
  q.at(sim::to_ticks(100), [&] { finish_drain(); }); // the jobs stopped at their checkpoint
  q.run_until(sim::to_ticks(100000));
  CHECK(done == sim::to_ticks(100 + 1800 + 1800)); // no isolate or refill: not coolant work
}
