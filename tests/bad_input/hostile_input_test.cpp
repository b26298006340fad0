// Hostile input (issue 13): every class the probe found is a located error with exit code 2, never a
// crash, a hang, a wrapped integer, a file read outside the scenario's folder or file contents echoed.
// Same style as bad_input_test.cpp: a valid base scenario, edited, and the exact messages.
#include "models/scenario.hpp"
#include "sim/json_reader.hpp"
#include "tests/support/shell.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/sweep.hpp"

#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using dcsim::tools::load_scenario_text;

namespace {

const std::string BASE = R"({
  "name": "t", "replicas": 1, "duration_h": 24,
  "hardware": { "gpu": { "model": "rubin" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
  "cluster": { "racks": 4 },
  "failures": { "modes": [ { "name": "gpu", "scope": "gpu", "mtbf_h": 50000 } ] },
  "operations": { "spare_racks": 1 },
  "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 1, "model_flops_per_step": 1e15 } ]
})";

std::string errors_with(std::vector<std::string> edits, const std::string& file = "t.json",
                        dcsim::tools::LoadOptions options = {}) {
  const auto loaded = load_scenario_text(BASE, file, edits, options);
  CHECK_FALSE(loaded.scenario.has_value());
  return loaded.errors;
}

std::string errors_of(const std::string& text) {
  const auto loaded = load_scenario_text(text, "t.json");
  CHECK_FALSE(loaded.scenario.has_value());
  return loaded.errors;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

} // namespace

TEST_CASE("hostile input: numbers beyond double range are located errors, in files and in --set",
          "[unit][bad_input]") {
  CHECK(errors_of(replaced(BASE, "\"racks\": 4", "\"racks\": 1e999")) ==
        "t.json: /cluster/racks: number beyond the range of a double (about 1.8e308) (got 1e999)\n");
  CHECK(errors_of(replaced(BASE, "\"racks\": 4", "\"racks\": " + std::string(400, '9'))) ==
        "t.json: /cluster/racks: number beyond the range of a double (about 1.8e308) (got "
        "9999999999999999999999999999999999999...)\n");
  CHECK(errors_of(replaced(BASE, "\"gpus\": 128", "\"gpus\": [1, -1e400]")) ==
        "t.json: /jobs/0/gpus/1: number beyond the range of a double (about 1.8e308) (got -1e400)\n");
  CHECK(errors_with({"duration_h=1e999"}) ==
        "t.json: --set duration_h: number beyond the range of a double (about 1.8e308) (got 1e999)\n");
}

TEST_CASE("hostile input: nesting deeper than 64 levels is one located error, not a stack overflow",
          "[unit][bad_input]") {
  const std::string deep = "{\"jobs\": " + std::string(50000, '[') + std::string(50000, ']') + "}";
  std::string pointer = "/jobs";
  for (int i = 0; i < 63; ++i)
    pointer += "/0";
  CHECK(errors_of(deep) == "t.json: " + pointer + ": nested deeper than 64 levels of arrays and objects\n");
  // 64 levels are fine as JSON (the decoder then says what is wrong with the value).
  const std::string ok = "{\"sweep\": " + std::string(63, '[') + std::string(63, ']') + "}";
  CHECK(errors_of(ok) == "t.json: /cluster/racks: missing required key\n"
                         "t.json: /sweep: must be an object (got [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[...)\n");
  CHECK(errors_with({"sweep=" + std::string(100, '[') + std::string(100, ']')}) ==
        "t.json: --set sweep: nested deeper than 64 levels of arrays and objects\n");
  std::string long_path = "a";
  for (int i = 0; i < 70; ++i)
    long_path += ".a";
  CHECK(errors_with({long_path + "=1"}) ==
        "t.json: --set a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a...: the path is deeper than 64 "
        "keys\n");
}

TEST_CASE("hostile input: (got ...) shows at most 60 characters of a huge value", "[unit][bad_input]") {
  dcsim::sim::Json huge = dcsim::sim::Json::array();
  for (int i = 0; i < 200000; ++i)
    huge.push_back(i);
  CHECK(dcsim::sim::render_value(huge) == "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,...");
  CHECK(dcsim::sim::render_value(dcsim::sim::Json(std::string(300000, 'x'))).size() == 60);
  CHECK(dcsim::sim::render_value(dcsim::sim::Json("caf\xc3\xa9")) == "\"caf\xc3\xa9\"");
}

TEST_CASE("hostile input: integers are range-checked before narrowing", "[unit][bad_input]") {
  CHECK(errors_with({"cluster.racks=4294967314"}) ==
        "t.json: /cluster/racks: must be <= 1048576, dcsim's limit of 2^20 GPUs (got 4294967314)\n");
  CHECK(errors_with({"cluster.racks=2147483648"}) ==
        "t.json: /cluster/racks: must be <= 1048576, dcsim's limit of 2^20 GPUs (got 2147483648)\n");
  CHECK(errors_with({"jobs.0.gpus=2147483648"}) ==
        "t.json: /jobs/0/gpus: must be <= 1048576, dcsim's limit of 2^20 GPUs (got 2147483648)\n");
  CHECK(errors_with({R"(rlcc.waves=[{"name": "w", "every_h": 24, "racks_per_step": 4294967296, "service_h": 1}])"}) ==
        "t.json: /rlcc/waves/0/racks_per_step: must be <= 1048576, dcsim's limit of 2^20 GPUs (got 4294967296)\n");
  CHECK(errors_with({"operations.repair_crews=4294967296"}) ==
        "t.json: /operations/repair_crews: must be <= 2147483647, the largest integer dcsim reads (got 4294967296)\n");
  CHECK(errors_with({"hardware.rack={\"kind\": \"hgx\", \"gpus_per_node\": 1048576, \"nodes_per_rack\": 4096}",
                     "operations={}"}) ==
        "t.json: /hardware/rack/nodes_per_rack: gives racks of more than dcsim's limit of 1048576 GPUs (got 4096)\n");
  // The lower bound is still stated alone when it is the one broken.
  CHECK(errors_with({"jobs.0.gpus=0"}) == "t.json: /jobs/0/gpus: must be >= 1 (got 0)\n");
}

TEST_CASE("hostile input: durations are bounded so that the timeline fits the tick type", "[unit][bad_input]") {
  const std::string limit = "dcsim's limit on durations (10^6 h)";
  CHECK(errors_with({"duration_h=1e12"}) ==
        "t.json: /duration_h: must be <= 1000000, " + limit + " (got 1000000000000.0)\n");
  CHECK(errors_with({"failures.modes.0.repair_h=1e7", "failures.modes.0.detect_s=1e10", "operations.restart_s=1e10",
                     "jobs.0.checkpoint.write_s=1e10", "jobs.0.checkpoint.interval_s=1e10"}) ==
        "t.json: /failures/modes/0/detect_s: must be <= 3600000000, " + limit + " (got 10000000000.0)\n"
        "t.json: /failures/modes/0/repair_h: must be <= 1000000, " + limit + " (got 10000000.0)\n"
        "t.json: /operations/restart_s: must be a number <= 3600000000, " + limit + " or \"auto\" (got 10000000000.0)\n"
        "t.json: /jobs/0/checkpoint/interval_s: must be a number <= 3600000000, " + limit +
            " or \"auto\" (got 10000000000.0)\n"
        "t.json: /jobs/0/checkpoint/write_s: must be <= 3600000000, " + limit + " (got 10000000000.0)\n");
  CHECK(errors_with({"failures.modes.0.mtbf_h=1e13"}) ==
        "t.json: /failures/modes/0/mtbf_h: must be <= 1000000000000, dcsim's limit on MTBFs (10^12 h) "
        "(got 10000000000000.0)\n");
  // The longest accepted duration still converts to ticks, and a drawn duration beyond any limit saturates.
  CHECK(dcsim::sim::hours_to_ticks(dcsim::sim::MAX_DURATION_H) == 3'600'000'000'000'000);
  CHECK(dcsim::sim::to_ticks(1e300) == dcsim::sim::MAX_TICKS);
  CHECK(dcsim::sim::to_ticks(std::numeric_limits<double>::infinity()) == dcsim::sim::MAX_TICKS);
  CHECK(dcsim::sim::to_ticks(-1e300) == -dcsim::sim::MAX_TICKS);
}

TEST_CASE("hostile input: a measured job's FLOPs must not exceed its GPUs' peak (MFU <= 1)", "[unit][bad_input]") {
  CHECK(errors_with({"jobs.0.model_flops_per_step=1e22"}) ==
        "t.json: /jobs/0/model_flops_per_step: gives an MFU of 1.953e+04 (model_flops_per_step / (step_time_s x "
        "gpus x 4000 TFLOP/s peak)): must be <= 1 (got 1e+22)\n");
  // Exactly the peak is allowed: 128 GPUs x 4000 TFLOP/s x 1 s.
  CHECK(load_scenario_text(BASE, "t.json", {"jobs.0.model_flops_per_step=5.12e17"}).scenario.has_value());
}

TEST_CASE("hostile input: names are short, restricted and never a path", "[unit][bad_input]") {
  const std::string long_name(300000, 'n');
  CHECK(errors_with({"name=\"" + long_name + "\""}) ==
        "t.json: /name: must be at most 64 characters (got \"" + std::string(56, 'n') + "...)\n");
  CHECK(errors_with({"name=\"../../x\""}) ==
        "t.json: /name: must use only letters, digits, '_', '.' and '-' (got \"../../x\")\n");
  CHECK(errors_with({"name=\"/tmp/x\""}) ==
        "t.json: /name: must use only letters, digits, '_', '.' and '-' (got \"/tmp/x\")\n");
  CHECK(errors_with({"name=\"..\""}) == "t.json: /name: must not start with '.' (got \"..\")\n");
  CHECK(errors_with({"jobs.0.name=\"" + std::string(65, 'j') + "\""}) ==
        "t.json: /jobs/0/name: must be at most 64 characters (got \"" + std::string(56, 'j') + "...)\n");
  CHECK(errors_with({"failures.modes.0.name=\"" + std::string(65, 'm') + "\""}) ==
        "t.json: /failures/modes/0/name: must be at most 64 characters (got \"" + std::string(56, 'm') + "...)\n");
  // Without a "name", the file name is the name, made safe.
  const auto loaded = load_scenario_text(replaced(BASE, "\"name\": \"t\", ", ""), "dir/.my scenario.json");
  REQUIRE(loaded.scenario);
  CHECK(loaded.scenario->name == "_my_scenario");
}

TEST_CASE("hostile input: --set with a huge index or invalid UTF-8 is an error, not an abort", "[unit][bad_input]") {
  CHECK(errors_with({"jobs.99999999999999999999=1"}) ==
        "t.json: --set jobs.99999999999999999999: /jobs has 1 elements; there is no element 99999999999999999999\n");
  CHECK(errors_with({"jobs.18446744073709551615.gpus=1"}) ==
        "t.json: --set jobs.18446744073709551615.gpus: /jobs has 1 elements; there is no element "
        "18446744073709551615\n");
  CHECK(errors_with({"name=\xff\xfe"}) == "t.json: --set: the argument is not valid UTF-8\n");
  CHECK(errors_with({"name=\"\xc0\xaf\""}) == "t.json: --set: the argument is not valid UTF-8\n"); // overlong '/'
  CHECK(errors_with({"n\xe2\x82=1"}) == "t.json: --set: the argument is not valid UTF-8\n");
  CHECK(dcsim::sim::valid_utf8("caf\xc3\xa9 \xf0\x9f\x99\x82"));
  CHECK_FALSE(dcsim::sim::valid_utf8("\xed\xa0\x80")); // a UTF-16 surrogate
}

TEST_CASE("hostile input: a sweep of more than 1,000,000 points is refused before any point is built",
          "[unit][bad_input]") {
  std::vector<dcsim::SweepAxis> axes(3);
  for (auto& a : axes)
    a.values.assign(1000, dcsim::sim::Json(1));
  CHECK(dcsim::tools::sweep_size_problem(axes) ==
        "1000000000 points (the product of the varied keys' value counts): more than dcsim's limit of 1000000");
  CHECK_THROWS_AS(dcsim::tools::expand_points(dcsim::sim::Json::object(), axes), std::length_error);
  axes.pop_back();
  CHECK(dcsim::tools::sweep_size_problem(axes).empty()); // 1000 x 1000 = 1,000,000 points

  const auto dir = dcsim::test::fresh_test_dir("hostile-sweep-size");
  std::ofstream(dir / "t.json") << BASE;
  std::string vary;
  for (int i = 0; i < 4; ++i) {
    vary += " --vary seed=";
    for (int v = 0; v < 20; ++v)
      vary += (v ? "," : "") + std::to_string(v + 1);
  }
  const auto r = dcsim::test::run_shell(
      dcsim::test::dcsim_binary() + " sweep " + dcsim::test::shell_quote((dir / "t.json").string()) +
      " --vary replicas=1,2,3,4,5,6,7 --vary duration_h=1,2,3,4,5,6,7,8,9,10 --vary jobs.0.gpus=1,2,3,4,5,6,7,8,9,10"
      " --vary operations.restart_s=1,2,3,4,5,6,7,8,9,10 --vary seed=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 --vary output.timeseries_interval_s=1,2,3,4,5,6,7,8,9,10 --out " +
      dcsim::test::shell_quote((dir / "out").string()) + " 2>&1");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "dcsim sweep: 1050000 points (the product of the varied keys' value counts): more than dcsim's "
                    "limit of 1000000\n");
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("hostile input: trace files must lie inside the scenario's folder, errors never quote the file",
          "[unit][bad_input]") {
  const auto dir = dcsim::test::fresh_test_dir("hostile-trace-files");
  std::filesystem::create_directories(dir / "s");
  const std::string file = (dir / "s" / "t.json").string();
  const std::string service = R"(jobs.0={"name": "s", "kind": "inference", "gpus": 64, "tokens_per_s_per_gpu": 1000, )";
  const std::string outside = "must name a file inside the scenario's folder (links followed; --allow-outside-files "
                              "lifts this)";
  std::ofstream(dir / "secret.csv") << "time_h,demand_tokens_per_s\n0,SECRET-VALUE\n";
  std::filesystem::create_symlink(dir / "secret.csv", dir / "s" / "link.csv");
  for (const std::string name : {"/etc/passwd", "../secret.csv", "link.csv", "/proc/self/environ"})
    CHECK(errors_with({service + "\"demand_trace_file\": \"" + name + "\"}"}, file) ==
          file + ": /jobs/0/demand_trace_file: " + outside + " (got \"" + name + "\")\n");
  // With the flag, the file is read, but its cells are quoted only when short printable ASCII.
  CHECK(errors_with({service + R"("demand_trace_file": "../secret.csv"})"}, file, {true}) ==
        file + ": /jobs/0/demand_trace_file: ../secret.csv line 2: demand_tokens_per_s must be a finite number "
               "(got \"SECRET-VALUE\")\n");
  CHECK(errors_with({service + R"("demand_trace_file": "/etc/passwd"})"}, file, {true})
            .find("/etc/passwd line 1: the header must be time_h,demand_tokens_per_s\n") != std::string::npos);
  CHECK(errors_with({service + R"("demand_trace_file": "/etc/passwd"})"}, file, {true}).find("root") ==
        std::string::npos);
  std::ofstream(dir / "s" / "d.csv") << "time_h,demand_tokens_per_s\n0,5\nx,y,z\n1," << std::string(50, 'v')
                                     << "\n2,\x1b[31m\n";
  CHECK(errors_with({service + R"("demand_trace_file": "d.csv"})"}, file) ==
        file + ": /jobs/0/demand_trace_file: d.csv line 3: expected two fields: time_h,demand_tokens_per_s\n" +
        file + ": /jobs/0/demand_trace_file: d.csv line 4: demand_tokens_per_s must be a finite number\n" + file +
        ": /jobs/0/demand_trace_file: d.csv line 5: demand_tokens_per_s must be a finite number\n");
  // A FIFO is refused at once instead of waiting for a writer.
  REQUIRE(::mkfifo((dir / "s" / "fifo.csv").c_str(), 0600) == 0);
  CHECK(errors_with({service + R"("demand_trace_file": "fifo.csv"})"}, file) ==
        file + ": /jobs/0/demand_trace_file: cannot read fifo.csv: not a regular file (got \"fifo.csv\")\n");
  const std::string cooling = R"(cooling={"facility_water_trace_file": "../secret.csv"})";
  CHECK(errors_with({cooling}, file) ==
        file + ": /cooling/facility_water_trace_file: " + outside + " (got \"../secret.csv\")\n");
}

TEST_CASE("hostile input: a FIFO given as the scenario is an error through the binary, exit 2",
          "[unit][bad_input]") {
  const auto dir = dcsim::test::fresh_test_dir("hostile-fifo");
  REQUIRE(::mkfifo((dir / "s.json").c_str(), 0600) == 0);
  const std::string path = (dir / "s.json").string();
  const auto r = dcsim::test::run_shell("timeout 20 " + dcsim::test::dcsim_binary() + " validate " +
                                        dcsim::test::shell_quote(path) + " 2>&1");
  CHECK(r.exit_code == 2);
  CHECK(r.output == path + ": cannot read the file: not a regular file\n");
  std::ofstream(dir / "t.json") << BASE;
  const std::string file = (dir / "t.json").string();
  const auto v = dcsim::test::run_shell(dcsim::test::dcsim_binary() + " validate " + dcsim::test::shell_quote(file) +
                                        " --set \"$(printf 'name=\\377')\" --set jobs.99999999999999999999=1 2>&1");
  CHECK(v.exit_code == 2);
  CHECK(v.output == file + ": --set: the argument is not valid UTF-8\n" + file +
                        ": --set jobs.99999999999999999999: /jobs has 1 elements; there is no element "
                        "99999999999999999999\n");
}

TEST_CASE("hostile input: every key table bounds its integers within int and its durations by the limit",
          "[unit][bad_input]") {
  for (const dcsim::sim::KeyTable* table : dcsim::scenario_key_tables())
    for (const auto& k : table->keys) {
      INFO(table->path << "/" << k.name);
      if (k.type == dcsim::sim::ValueType::INTEGER && k.name != "seed") {
        CHECK(k.bounds.min >= INT_MIN);
        CHECK(k.bounds.max <= INT_MAX);
      }
      const bool duration = k.unit == "h" || k.unit == "s" || k.unit == "us" || k.unit == "ns";
      if (duration && k.type != dcsim::sim::ValueType::INTEGER) CHECK(std::isfinite(k.bounds.max));
    }
}
