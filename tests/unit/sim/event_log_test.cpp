#include "sim/event_log.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace dcsim;

namespace {

/// The reference: a stable sort of the log by date.
std::vector<std::string> stable_sorted(const std::deque<sim::EventRecord>& records) {
  std::vector<sim::EventRecord> copy(records.begin(), records.end());
  std::stable_sort(copy.begin(), copy.end(),
                   [](const sim::EventRecord& a, const sim::EventRecord& b) { return a.time < b.time; });
  std::vector<std::string> out;
  for (const auto& r : copy)
    out.push_back(r.detail);
  return out;
}

std::vector<std::string> details(const std::vector<sim::EventRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records)
    out.push_back(r.detail);
  return out;
}

} // namespace

TEST_CASE("event log: records taken in time order keep the log order within a date", "[unit][event_log]") {
  sim::EventLog log;
  // Dates 10, 20, 20, then two late records (15 and 20, the latter tied with two earlier ones), 30.
  for (const auto& [t, d] : std::vector<std::pair<sim::Tick, std::string>>{
           {10, "a"}, {20, "b"}, {20, "c"}, {15, "late15"}, {20, "late20"}, {30, "d"}, {5, "late5"}})
    log.add({t, "kind", "x", "gpu", "", d});
  const auto out = log.take_in_time_order();
  CHECK(details(out) == std::vector<std::string>{"late5", "a", "late15", "b", "c", "late20", "d"});
  CHECK(log.records().empty());
  CHECK(log.take_in_time_order().empty());
}

TEST_CASE("event log: time order equals a stable sort on mostly ordered logs", "[unit][event_log]") {
  std::mt19937_64 gen(12345);
  for (int trial = 0; trial < 50; ++trial) {
    sim::EventLog log;
    sim::Tick now = 0;
    const int n = 1 + static_cast<int>(gen() % 3000);
    for (int i = 0; i < n; ++i) {
      if (gen() % 3 == 0) now += static_cast<sim::Tick>(gen() % 5); // many ties
      sim::Tick t = now;
      if (gen() % 10 == 0) t = now - static_cast<sim::Tick>(gen() % 50); // logged after the fact
      if (gen() % 200 == 0) t = now + 40;                                 // one ahead of the rest
      log.add({t, "kind", "x", "gpu", "", std::to_string(i)});
    }
    const auto expected = stable_sorted(log.records());
    REQUIRE(details(log.take_in_time_order()) == expected);
  }
}

TEST_CASE("event log: a disabled log takes nothing", "[unit][event_log]") {
  sim::EventLog log(false);
  log.add({1, "kind", "x", "gpu", "", "d"});
  CHECK(log.take_in_time_order().empty());
}

TEST_CASE("event log: append_fixed3 writes what fmt's {:.3f} writes", "[unit][event_log]") {
  std::mt19937_64 gen(777);
  std::vector<double> values = {0.0,     -0.0,   0.0005, 0.0015,  0.0625, 2.0625, 0.2505, 1.0005, 999.9995, 0.25,
                                4.0,     15.125, 1e6,    999999.9996, 1e300, -1.5,  -0.0004, 123456.7895};
  values.push_back(std::numeric_limits<double>::infinity());
  values.push_back(std::numeric_limits<double>::quiet_NaN());
  std::uniform_real_distribution<double> hours(0, 200), wide(0, 2e6);
  for (int i = 0; i < 100000; ++i) {
    values.push_back(hours(gen));
    values.push_back(wide(gen));
    values.push_back(static_cast<double>(gen() % 10'000'000'000ULL) / 3.6e9); // tick counts in hours
    values.push_back(static_cast<double>(gen() % 2'000'000) / 1000.0 + 0.0005); // near ties
  }
  for (const double v : values) {
    std::string out = "x ";
    sim::append_fixed3(out, v);
    REQUIRE(out == "x " + fmt::format("{:.3f}", v));
  }
}
