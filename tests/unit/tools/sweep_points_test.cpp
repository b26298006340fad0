// Sweep expansion, the scenario's sweep block and the completion record (no engine, no process).
#include "tests/support/shell.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/sweep.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace dcsim;
using namespace dcsim::tools;
using sim::Json;

namespace {
const char* BASE = R"({"cluster": {"racks": 4}, "jobs": [{"name": "j", "gpus": 64, "step_time_s": 1,
  "model_flops_per_step": 1e15}]})";
}

TEST_CASE("sweep --vary values: commas outside brackets and quotes separate, JSON else string", "[tools][sweep]") {
  SweepAxis axis;
  REQUIRE(parse_vary("jobs.0.checkpoint.interval_s=auto,600,\"a,b\",[1,2],{\"x\":1}", axis).empty());
  CHECK(axis.key == "jobs.0.checkpoint.interval_s");
  REQUIRE(axis.values.size() == 5);
  CHECK(axis.values[0] == Json("auto"));
  CHECK(axis.values[1] == Json(600));
  CHECK(axis.values[2] == Json("a,b"));
  CHECK(axis.values[3] == Json::array({1, 2}));
  CHECK(axis.values[4] == Json{{"x", 1}});
  CHECK(parse_vary("seed=1,,2", axis) == "--vary seed: empty value in the list \"1,,2\"");
  CHECK(parse_vary("=1,2", axis) == "--vary =1,2: expected key.path=value1,value2,...");
}

TEST_CASE("sweep points: cartesian product, first axis slowest, values applied", "[tools][sweep]") {
  const Json base = Json::parse(BASE);
  const std::vector<SweepAxis> axes{{"operations.spare_racks", {0, 1}}, {"seed", {5, 6, 7}}};
  const auto points = expand_points(base, axes);
  REQUIRE(points.size() == 6);
  CHECK(points[0].label() == "operations.spare_racks=0, seed=5");
  CHECK(points[2].label() == "operations.spare_racks=0, seed=7");
  CHECK(points[3].label() == "operations.spare_racks=1, seed=5");
  CHECK(points[4].document.at("seed") == Json(6));
  CHECK(points[4].document.at("operations").at("spare_racks") == Json(1));
  CHECK(points[5].apply_error.empty());
  const auto bad = expand_points(base, {{"jobs.3.gpus", {1}}});
  CHECK(bad[0].apply_error == "--set jobs.3.gpus: /jobs has 1 elements; there is no element 3");
  CHECK(point_dir_name(7, 6) == "point-007");
  CHECK(point_dir_name(7, 2000) == "point-0007");
}

TEST_CASE("the sweep block decodes, is checked, and leaves the scenario otherwise unchanged",
          "[tools][sweep]") {
  const auto plain = load_scenario_text(BASE, "s.json");
  REQUIRE(plain.scenario);
  CHECK(plain.scenario->sweep.empty());
  Json doc = Json::parse(BASE);
  doc["sweep"] = Json{{"vary", Json::array({Json{{"key", "seed"}, {"values", Json::array({1, 2})}}})}};
  const auto swept = load_scenario_text(doc.dump(), "s.json");
  REQUIRE(swept.scenario);
  REQUIRE(swept.scenario->sweep.size() == 1);
  CHECK(swept.scenario->sweep[0].values.size() == 2);
  CHECK(swept.scenario->replicas == plain.scenario->replicas);
  CHECK(swept.scenario->jobs.size() == plain.scenario->jobs.size());

  doc["sweep"] = Json{{"vary", Json::array({Json{{"key", "seed"}, {"values", Json::array()}},
                                            Json{{"key", "seed"}, {"values", 3}}, Json{{"key", "x"}},
                                            Json{{"kye", "x"}, {"values", Json::array({1})}}})}};
  const auto bad = load_scenario_text(doc.dump(), "s.json");
  CHECK_FALSE(bad.scenario);
  // Unknown keys are reported when an object is bound, before its values are read.
  CHECK(bad.errors == "s.json: /sweep/vary/3/kye: unknown key; did you mean \"key\"? (got \"x\")\n"
                      "s.json: /sweep/vary/0/values: must list at least one value (got [])\n"
                      "s.json: /sweep/vary/1/key: is varied twice (got \"seed\")\n"
                      "s.json: /sweep/vary/1/values: must be an array (got 3)\n"
                      "s.json: /sweep/vary/2/values: missing required key\n"
                      "s.json: /sweep/vary/3/key: missing required key\n");
}

TEST_CASE("a point is complete only with a matching marker and untouched files", "[tools][sweep]") {
  const auto dir = test::fresh_test_dir("unit-sweep-complete");
  const auto points = expand_points(Json::parse(BASE), {{"seed", {1, 2}}});
  std::string why;
  CHECK_FALSE(point_is_complete(dir, points[0], &why));
  CHECK(why == "no complete.json");
  std::ofstream(dir / "summary.csv") << "scenario,job,metric,mean,ci95_low,ci95_high,replicas\n";
  std::ofstream(dir / "events.csv") << "x\n";
  std::ofstream(dir / "summary.csv.tmp-123") << "partial"; // a killed writer's leftover is not an output
  mark_point_complete(dir, points[0]);
  CHECK(point_is_complete(dir, points[0], &why));
  CHECK_FALSE(point_is_complete(dir, points[1], &why));
  CHECK(why == "complete.json records another scenario");
  std::ofstream(dir / "events.csv") << "y\n";
  CHECK_FALSE(point_is_complete(dir, points[0], &why));
  CHECK(why == "events.csv differs from the one recorded");
  std::filesystem::remove(dir / "events.csv");
  CHECK_FALSE(point_is_complete(dir, points[0], &why));
  CHECK(why == "events.csv is missing");
}

TEST_CASE("zipped axes vary together: one dimension of the product, where the first zipped key is",
          "[tools][sweep]") {
  const Json base = Json::parse(BASE);
  std::vector<SweepAxis> axes{{"seed", {5, 6}}, {"operations.spare_racks", {0, 1, 2}, true},
                              {"replicas", {3, 4, 5}, true}};
  CHECK(sweep_dimensions(axes) == std::vector<std::vector<std::size_t>>{{0}, {1, 2}});
  const auto points = expand_points(base, axes);
  REQUIRE(points.size() == 6); // 2 seeds x 3 zipped pairs, not 2 x 3 x 3
  CHECK(points[0].label() == "seed=5, operations.spare_racks=0, replicas=3");
  CHECK(points[2].label() == "seed=5, operations.spare_racks=2, replicas=5");
  CHECK(points[4].label() == "seed=6, operations.spare_racks=1, replicas=4");
  CHECK(points[4].document.at("replicas") == Json(4));
  CHECK(zip_length_problem(axes).empty());
  axes[2].values.pop_back();
  CHECK(zip_length_problem(axes) == "zipped key replicas lists 2 values, but operations.spare_racks lists 3 "
                                    "(zipped keys vary together: give each as many values)");
  CHECK_THROWS_AS(expand_points(base, axes), std::invalid_argument);
  // Unzipped axes expand exactly as before.
  for (auto& a : axes)
    a.zipped = false;
  CHECK(expand_points(base, axes).size() == 12);
}

TEST_CASE("the sweep block's zip list: decoded as zipped axes after vary, lengths checked", "[tools][sweep]") {
  Json doc = Json::parse(BASE);
  doc["sweep"] = Json::parse(R"({"vary": [{"key": "seed", "values": [1, 2]}],
    "zip": [{"key": "operations.spare_racks", "values": [0, 1, 2]}, {"key": "replicas", "values": [3, 4, 5]}]})");
  const auto ok = load_scenario_text(doc.dump(), "s.json");
  REQUIRE(ok.scenario);
  REQUIRE(ok.scenario->sweep.size() == 3);
  CHECK_FALSE(ok.scenario->sweep[0].zipped);
  CHECK(ok.scenario->sweep[1].zipped);
  CHECK(ok.scenario->sweep[2].key == "replicas");
  CHECK(ok.scenario->sweep[2].zipped);
  doc["sweep"]["zip"][1]["values"] = Json::array({3, 4});
  doc["sweep"]["zip"].push_back(Json{{"key", "seed"}, {"values", Json::array({7, 8, 9})}});
  const auto bad = load_scenario_text(doc.dump(), "s.json");
  CHECK_FALSE(bad.scenario);
  CHECK(bad.errors == "s.json: /sweep/zip/1/values: lists 2 values, but /sweep/zip/0/values lists 3 (zipped keys "
                      "vary together: give each as many values) (got [3,4])\n"
                      "s.json: /sweep/zip/2/key: is varied twice (got \"seed\")\n");
}
