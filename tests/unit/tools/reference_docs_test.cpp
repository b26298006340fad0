// docs/scenario-reference.md and `dcsim schema` come from the key tables, docs/metrics.md from the
// metric table; the files must be current.
#include "models/ledger/metric_table.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/describe.hpp"
#include "tools/dcsim/schema.hpp"

#include <catch2/catch.hpp>

#include <functional>

using namespace dcsim;

TEST_CASE("docs/scenario-reference.md is generated from the key tables and current", "[tools][docs]") {
  const std::string expected = tools::scenario_reference_markdown();
  const std::string actual = test::source_file("docs/scenario-reference.md");
  INFO("docs/scenario-reference.md is stale: run tools/update-docs and commit the result");
  CHECK(actual == expected);
}

TEST_CASE("docs/metrics.md is generated from the metric table and current", "[tools][docs]") {
  const std::string expected = tools::metrics_markdown();
  const std::string actual = test::source_file("docs/metrics.md");
  INFO("docs/metrics.md is stale: run tools/update-docs and commit the result");
  CHECK(actual == expected);
  for (const auto& def : ledger::metric_table()) { // one row per metric, in the listing too
    INFO(def.name);
    CHECK(expected.find("| `" + def.name + "` |") != std::string::npos);
    CHECK(tools::describe_metrics().find("  " + def.name + " ") != std::string::npos);
  }
}

TEST_CASE("the JSON Schema closes every object and requires what the decoder requires", "[tools][docs]") {
  const sim::Json schema = tools::scenario_json_schema();
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
  int objects = 0;
  std::function<void(const sim::Json&)> walk = [&](const sim::Json& s) {
    if (s.is_object()) {
      if (s.contains("properties")) {
        ++objects;
        CHECK(s.at("additionalProperties") == false);
      }
      for (const auto& [k, v] : s.items())
        walk(v);
    } else if (s.is_array()) {
      for (const auto& v : s)
        walk(v);
    }
  };
  walk(schema);
  CHECK(objects >= 14); // every key table is an object schema
  const auto& props = schema.at("properties");
  CHECK(schema.at("required") == sim::Json::array({"cluster"}));
  CHECK(props.at("cluster").at("required") == sim::Json::array({"racks"}));
  CHECK(props.at("jobs").at("items").at("required").size() >= 2);
  const auto& interval =
      props.at("jobs").at("items").at("properties").at("checkpoint").at("properties").at("interval_s");
  REQUIRE(interval.contains("anyOf"));
  CHECK(interval.at("anyOf").at(1).at("enum") == sim::Json::array({"auto"}));
  CHECK(props.at("hardware").at("properties").at("rack").at("properties").at("kind").at("enum").size() == 2);
  CHECK(props.at("sweep").at("properties").at("vary").at("items").at("required") ==
        sim::Json::array({"key", "values"}));
}

TEST_CASE("every array of objects has its items described, in the schema and the reference", "[tools][docs]") {
  // The repair pipeline's stage keys were once decoded from a table that no listing knew.
  const sim::Json schema = tools::scenario_json_schema();
  const auto& pipeline = schema.at("properties").at("operations").at("properties").at("repair_pipeline");
  REQUIRE(pipeline.contains("items"));
  for (const char* key : {"name", "duration_h", "dist", "sigma", "success_frac", "escape_frac", "crew", "drain_rack"})
    CHECK(pipeline.at("items").at("properties").contains(key));
  CHECK(tools::scenario_reference_markdown().find("/operations/repair_pipeline/*") != std::string::npos);
  std::function<void(const sim::Json&, const std::string&)> walk = [&](const sim::Json& s, const std::string& at) {
    if (!s.is_object()) return;
    if (s.contains("type") && s.at("type") == "array" && s.contains("description")) {
      const std::string what = s.at("description").get<std::string>();
      if (what.find("(see /") != std::string::npos) { // an array of objects described by a table
        INFO(at);
        CHECK(s.contains("items"));
      }
    }
    if (s.contains("properties"))
      for (const auto& [k, v] : s.at("properties").items())
        walk(v, at + "/" + k);
    if (s.contains("items")) walk(s.at("items"), at + "/*");
  };
  walk(schema, "");
}
