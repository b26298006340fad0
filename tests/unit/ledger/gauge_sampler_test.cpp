// GaugeSampler: every gauge read once per date, in registration order.
#include "models/ledger/gauge_sampler.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;
using namespace dcsim::ledger;

TEST_CASE("gauges are read together, in the order they were registered", "[ledger][gauges]") {
  GaugeSampler gauges;
  int healthy = 10;
  gauges.add("cluster", "healthy_gpus", [&](sim::Tick) { return double(healthy); });
  gauges.add("job", "demand_tokens_per_s", [](sim::Tick now) { return 2.0 * static_cast<double>(now); });
  sim::EventLog log(/*enabled=*/false); // events off (output.events false): samples are still kept
  gauges.sample(5, log);
  log.add({6, "failure", "rack0001", "rack", "", ""});
  healthy = 9;
  gauges.sample(7, log);
  CHECK(log.records().empty());
  const std::vector<Sample> out = log.take_samples();
  CHECK(log.samples().empty());
  REQUIRE(out.size() == 4);
  CHECK(out[0].time == 5);
  CHECK(out[0].entity == "cluster");
  CHECK(out[0].gauge == "healthy_gpus");
  CHECK(out[0].value == 10);
  CHECK(out[1].gauge == "demand_tokens_per_s");
  CHECK(out[1].value == 10);
  CHECK(out[2].value == 9);
  CHECK(out[3].value == 14);
}
