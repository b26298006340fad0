// Bad input: every problem reported at once, each as `FILE: /json/pointer: message (got VALUE)`, exit
// code 2 and nothing written. Each case edits a valid base scenario and asserts the exact output.
#include "models/workload/recovery/registry.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using dcsim::tools::load_scenario_text;

namespace {

const char* BASE = R"({
  "name": "t", "replicas": 1, "duration_h": 24,
  "hardware": { "gpu": { "model": "rubin" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
  "cluster": { "racks": 4 },
  "failures": { "modes": [ { "name": "gpu", "scope": "gpu", "mtbf_h": 50000 } ] },
  "operations": { "spare_racks": 1 },
  "jobs": [ { "name": "j", "gpus": 128, "step_time_s": 1, "model_flops_per_step": 1e15 } ]
})";

/// The error text for the base scenario with `--set` edits (values in JSON).
std::string errors_with(std::vector<std::string> edits) {
  const auto loaded = load_scenario_text(BASE, "t.json", edits);
  CHECK_FALSE(loaded.scenario.has_value());
  return loaded.errors;
}

std::string errors_of(const std::string& text) {
  const auto loaded = load_scenario_text(text, "t.json");
  CHECK_FALSE(loaded.scenario.has_value());
  return loaded.errors;
}

} // namespace

TEST_CASE("the base scenario of these tests is valid", "[unit][bad_input]") {
  const auto loaded = load_scenario_text(BASE, "t.json");
  INFO(loaded.errors);
  CHECK(loaded.scenario.has_value());
}

TEST_CASE("bad input: syntax and structure", "[unit][bad_input]") {
  CHECK(errors_of("{ \"name\": \"t\",\n  \"replicas\": 1,,\n}") ==
        "t.json: line 2, column 17: syntax error while parsing object key - unexpected ','; "
        "expected string literal\n");
  CHECK(errors_of(R"({"name": "a", "name": "b", "cluster": {"racks": 1}})") ==
        "t.json: /name: duplicate key (the later value would win)\n");
  CHECK(errors_of("[1, 2]") == "t.json: /: must be an object (got [1,2])\n");
  CHECK(errors_with({R"(hardware=3)"}) == "t.json: /hardware: must be an object (got 3)\n");
  CHECK(errors_with({R"(jobs={})"}) == "t.json: /jobs: must be an array (got {})\n");
  CHECK(errors_with({"durration_h=24"}) == "t.json: /durration_h: unknown key; did you mean \"duration_h\"? (got 24)\n");
  CHECK(errors_with({"cluster.color=1"}) == "t.json: /cluster/color: unknown key; allowed keys here: racks (got 1)\n");
}

TEST_CASE("bad input: top-level values", "[unit][bad_input]") {
  CHECK(errors_with({"duration_h=\"long\""}) == "t.json: /duration_h: must be a number (got \"long\")\n");
  CHECK(errors_with({"duration_h=-5"}) == "t.json: /duration_h: must be > 0 (got -5)\n");
  CHECK(errors_with({"replicas=0"}) == "t.json: /replicas: must be in [1, 100000] (got 0)\n");
  CHECK(errors_with({"seed=1.5"}) == "t.json: /seed: must be an integer (got 1.5)\n");
  CHECK(errors_with({"output.events=\"yes\""}) == "t.json: /output/events: must be true or false (got \"yes\")\n");
  CHECK(errors_with({"output.timeseries_interval_s=-1"}) ==
        "t.json: /output/timeseries_interval_s: must be >= 0 (got -1)\n");
}

TEST_CASE("bad input: hardware and cluster", "[unit][bad_input]") {
  CHECK(errors_with({"hardware.gpu.model=\"b300\""}) ==
        "t.json: /hardware/gpu/model: must be one of \"a100-80g\", \"h100-sxm\", \"h200\", \"b200\", \"gb200\", "
        "\"gb300\" or \"rubin\" (got \"b300\")\n");
  CHECK(errors_with({"hardware.gpu.peak_tflops=0"}) == "t.json: /hardware/gpu/peak_tflops: must be > 0 (got 0)\n");
  CHECK(errors_with({"hardware.rack.kind=\"nvl36\""}) ==
        "t.json: /hardware/rack/kind: must be one of \"nvl72\" or \"hgx\" (got \"nvl36\")\n");
  CHECK(errors_with({"hardware.rack.gpus_per_node=8"}) ==
        "t.json: /hardware/rack/gpus_per_node: applies only to racks of kind \"hgx\" (kind is \"nvl72\") (got 8)\n");
  CHECK(errors_with({"hardware.rack.spare_gpus=72"}) ==
        "t.json: /hardware/rack/spare_gpus: must leave at least one usable GPU: must be < gpus (72) (got 72)\n");
  CHECK(errors_with({"hardware.rack.gpus_per_tray=5"}) ==
        "t.json: /hardware/rack/gpus_per_tray: must divide gpus (72) into whole trays (got 5)\n");
  CHECK(errors_of(R"({"name": "t"})") == "t.json: /cluster/racks: missing required key\n");
  CHECK(errors_with({"cluster.racks=20000"}) ==
        "t.json: /cluster/racks: gives 1440000 GPUs, more than dcsim's limit of 1048576 (got 20000)\n");
}

TEST_CASE("bad input: failure modes", "[unit][bad_input]") {
  CHECK(errors_with({"failures.modes.0.mtbf_h=-1"}) == "t.json: /failures/modes/0/mtbf_h: must be > 0 (got -1)\n");
  CHECK(errors_with({R"(failures.modes.0={"name": "gpu", "scope": "gpu"})"}) ==
        "t.json: /failures/modes/0: missing failure rate: give exactly one of mtbf_h, rate_per_gpu_day, "
        "rate_per_node_day\n");
  CHECK(errors_with({"failures.modes.0.rate_per_gpu_day=0.001"}) ==
        "t.json: /failures/modes/0/rate_per_gpu_day: give exactly one of mtbf_h, rate_per_gpu_day, "
        "rate_per_node_day; this mode has more than one (got 0.001)\n");
  CHECK(errors_with({"failures.modes.0.scope=\"cpu\""}) ==
        "t.json: /failures/modes/0/scope: must be one of \"gpu\", \"tray\", \"node\", \"rack\", \"nic_port\", "
        "\"link\", \"leaf\", \"spine\", \"core\", \"branch\", \"valve\", \"pump\", \"loop\", \"facility\", \"power_shelf\" or \"object_store\" (got \"cpu\")\n");
  CHECK(errors_with({"hardware.rack={\"kind\": \"hgx\"}", "operations={}", "failures.modes.0.scope=\"tray\""}) ==
        "t.json: /failures/modes/0/scope: tray exists only in nvl72 racks; use node for an hgx server (got \"tray\")\n");
  CHECK(errors_with({"failures.modes.0.repair_dist=\"lognormal\""}) ==
        "t.json: /failures/modes/0: repair_dist lognormal needs repair_sigma\n");
  CHECK(errors_with({"failures.modes.0.repair_sigma=0.5"}) ==
        "t.json: /failures/modes/0/repair_sigma: applies only to repair_dist \"lognormal\" (repair_dist is "
        "\"fixed\") (got 0.5)\n");
  CHECK(errors_with({"failures.modes.0.weibull_start=\"new\""}) ==
        "t.json: /failures/modes/0/weibull_start: applies only to Weibull modes (weibull_shape != 1) (got \"new\")\n");
  CHECK(errors_with({"failures.modes.0.weibull_shape=0"}) ==
        "t.json: /failures/modes/0/weibull_shape: must be > 0 (got 0)\n");
  CHECK(errors_with({"failures.modes.0.detect_s=-60"}) == "t.json: /failures/modes/0/detect_s: must be >= 0 (got -60)\n");
  CHECK(errors_with({R"(failures.modes=[{"name": "a b", "scope": "gpu", "mtbf_h": 1},
                                        {"name": "x", "scope": "gpu", "mtbf_h": 1},
                                        {"name": "x", "scope": "rack", "mtbf_h": 1}])"}) ==
        "t.json: /failures/modes/0/name: must use only letters, digits, '_', '.' and '-' (got \"a b\")\n"
        "t.json: /failures/modes/2/name: duplicate failure mode name (got \"x\")\n");
  CHECK(errors_with({"failures.modes.0.scope=\"leaf\""}) ==
        "t.json: /failures/modes/0/scope: is a fabric element: the scenario needs a /fabric block (got \"leaf\")\n");
  CHECK(errors_with({"failures.modes.0.mtbf=5"}) ==
        "t.json: /failures/modes/0/mtbf: unknown key; did you mean \"mtbf_h\"? (got 5)\n");
  CHECK(errors_with({"failures.modes.0.repair_pipeline=true", "failures.modes.0.repair_crew=false"}) ==
        "t.json: /failures/modes/0/repair_crew: has no effect with repair_pipeline: each stage of "
        "/operations/repair_pipeline says whether it needs a crew (got false)\n");
}

TEST_CASE("bad input: fabric failure modes", "[unit][bad_input]") {
  const std::string fabric = R"(fabric={"planes": 8, "port_gbps": 200, "tiers": 2, "switch_radix": 64})";
  CHECK(errors_with({fabric, "failures.modes.0.scope=\"leaf\"", "failures.modes.0.mtbf_h=null",
                     "failures.modes.0.rate_per_gpu_day=0.001"}) ==
        "t.json: /failures/modes/0/mtbf_h: must be a number (got null)\n"
        "t.json: /failures/modes/0/rate_per_gpu_day: give exactly one of mtbf_h, rate_per_gpu_day, "
        "rate_per_node_day; this mode has more than one (got 0.001)\n");
  CHECK(errors_with({fabric, R"(failures.modes.0={"name": "leaf", "scope": "leaf", "rate_per_gpu_day": 0.001})"}) ==
        "t.json: /failures/modes/0/rate_per_gpu_day: fabric elements take mtbf_h (mean time between failures of "
        "one element) (got 0.001)\n");
  CHECK(errors_with({fabric, "failures.modes.0.scope=\"core\""}) ==
        "t.json: /failures/modes/0/scope: core switches exist only in 3-tier fabrics (/fabric/tiers is 2) "
        "(got \"core\")\n");
}

TEST_CASE("bad input: the shared fabric's keys", "[unit][bad_input]") {
  const std::string fabric = R"(fabric={"planes": 8, "port_gbps": 200, "tiers": 2, "switch_radix": 64)";
  CHECK(errors_with({fabric + R"(, "qps_per_connection": 2})"}) ==
        "t.json: /fabric/qps_per_connection: applies only to routing \"ecmp_hash\" (routing is \"ideal\") (got 2)\n");
  CHECK(errors_with({fabric + R"(, "routing": "ecmp_hash", "phase_overlap": "isolated"})"}) ==
        "t.json: /fabric/routing: ecmp_hash needs the shared fabric (phase_overlap is \"isolated\") (got \"ecmp_hash\")\n");
  CHECK(errors_with({fabric + R"(, "phase_overlap": "sometimes"})"}) ==
        "t.json: /fabric/phase_overlap: must be one of \"isolated\", \"aligned\", \"interleaved\", \"random\" or "
        "\"duty_cycle\" (got \"sometimes\")\n");
}

TEST_CASE("bad input: cooling failure modes", "[unit][bad_input]") {
  // Mission Control repairs cooling faults with RLCC workflows: detected after detect_s, whatever a kind
  // would say, on the RLCC crews, never through the repair pipeline.
  const std::vector<std::string> leak = {"cooling={}",
                                         R"(failures.modes.0={"name": "leak", "scope": "branch", "mtbf_h": 1000})"};
  auto with = [&](std::string edit) {
    auto edits = leak;
    edits.push_back(std::move(edit));
    return errors_with(edits);
  };
  CHECK(with("failures.modes.0.kind=\"latent\"") ==
        "t.json: /failures/modes/0/kind: cooling elements fail stop (Racky detects them after detect_s; their "
        "effects on jobs are the facility's physics) (got \"latent\")\n");
  CHECK(with("failures.modes.0.repair_pipeline=true") ==
        "t.json: /failures/modes/0/repair_pipeline: has no effect on cooling elements: an RLCC workflow (/rlcc) "
        "repairs them (got true)\n");
  CHECK(with("failures.modes.0.repair_crew=false") ==
        "t.json: /failures/modes/0/repair_crew: has no effect on cooling elements: their repairs take one of "
        "/cooling/crews (got false)\n");
}

TEST_CASE("bad input: operations", "[unit][bad_input]") {
  CHECK(errors_with({"operations.spare_nodes=2"}) ==
        "t.json: /operations/spare_nodes: applies only to racks of kind \"hgx\"; nvl72 designs use spare_racks (got 2)\n");
  CHECK(errors_with({"operations.spare_racks=4"}) ==
        "t.json: /operations/spare_racks: must leave racks for jobs: warm and cold spares together must be < 4 (the "
        "cluster's racks) (got 4)\n");
  CHECK(errors_with({"operations.repair_crews=-1"}) == "t.json: /operations/repair_crews: must be >= 0 (got -1)\n");
  CHECK(errors_with({"operations.planned_interval_h=0.1", "operations.planned_downtime_s=300"}) ==
        "t.json: /operations/planned_interval_h: must leave time to train: must exceed planned_downtime_s + "
        "restart_s = 900 s (got 0.1)\n");
  // planned_interval_h 0 means no planned maintenance, whatever the downtime says (issue 23).
  const auto no_stops = load_scenario_text(BASE, "t.json", {"operations.planned_downtime_s=600"});
  REQUIRE(no_stops.scenario.has_value());
  CHECK(no_stops.scenario->operations.planned_interval_h == 0);
}

TEST_CASE("bad input: jobs", "[unit][bad_input]") {
  CHECK(errors_with({"jobs.0.gpus=1000"}) ==
        "t.json: /jobs/0/gpus: needs 16 racks of 64 usable GPUs, but only 3 of the cluster's 4 are not spares "
        "(got 1000)\n");
  // Jobs together may exceed the cluster (they queue), each alone may not.
  CHECK(load_scenario_text(BASE, "t.json", {R"(jobs.1={"name": "k", "gpus": 129, "step_time_s": 1, "model_flops_per_step": 0})"})
            .scenario.has_value());
  CHECK(errors_with({R"(jobs.1={"name": "k", "gpus": 193, "step_time_s": 1, "model_flops_per_step": 0})"}) ==
        "t.json: /jobs/1/gpus: needs 4 racks of 64 usable GPUs, but only 3 of the cluster's 4 are not spares "
        "(got 193)\n");
  CHECK(errors_with({"jobs.0.gpus=100", "jobs.0.min_gpus_frac=0.5"}) ==
        "t.json: /jobs/0/gpus: an elastic job (min_gpus_frac < 1) shrinks and grows by whole racks: gpus must be a "
        "multiple of their 64 usable GPUs (got 100)\n");
  CHECK(errors_with({"jobs.0.arrival_h=24"}) ==
        "t.json: /jobs/0/arrival_h: must be < duration_h (24 h): the job would never run (got 24)\n");
  // A reliability-only job needs no step time nor FLOPs (tests/integration/end_when_test.cpp runs one).
  CHECK(load_scenario_text(BASE, "t.json", {R"(jobs.0={"name": "j", "gpus": 8})"}).scenario.has_value());
  // FLOPs without a step time: MFU unknown, not an error (and no MFU check against the peak).
  CHECK(load_scenario_text(BASE, "t.json", {R"(jobs.0={"name": "j", "gpus": 8, "model_flops_per_step": 1e15})"})
            .scenario.has_value());
  CHECK(errors_with({"end_when=\"jobs_done\""}) ==
        "t.json: /end_when: jobs_done needs a training job with work_h > 0 (no job here ends by itself) "
        "(got \"jobs_done\")\n");
  CHECK(errors_with({"end_when=\"never\""}) ==
        "t.json: /end_when: must be one of \"duration_h\" or \"jobs_done\" (got \"never\")\n");
  CHECK(errors_with({"jobs.0.name=\"cluster\""}) ==
        "t.json: /jobs/0/name: \"cluster\" is reserved for cluster-wide rows of the outputs (got \"cluster\")\n");
  CHECK(errors_with({"jobs.0.kind=\"serving\""}) ==
        "t.json: /jobs/0/kind: must be one of \"training\" or \"inference\" (got \"serving\")\n");
  CHECK(errors_with({"jobs.0.kind=\"inference\""}) ==
        "t.json: /jobs/0/step_time_s: applies only to training jobs (this job's kind is \"inference\") (got 1)\n"
        "t.json: /jobs/0/model_flops_per_step: applies only to training jobs (this job's kind is \"inference\") "
        "(got 1e+15)\n"
        "t.json: /jobs/0: missing tokens_per_s_per_gpu (required for kind \"inference\" without serving)\n"
        "t.json: /jobs/0: missing demand_tokens_per_s (required for kind \"inference\" without a demand trace)\n");
  CHECK(errors_with({"jobs.0.gpus=0"}) == "t.json: /jobs/0/gpus: must be >= 1 (got 0)\n");
  // A service described by a model (/jobs/*/serving): one source of the capacity, checks against the hardware.
  const std::string served = R"(jobs.0={"name": "s", "kind": "inference", "gpus": 64, "demand_tokens_per_s": 1000, )";
  CHECK(errors_with({served + R"("tokens_per_s_per_gpu": 10, "serving": {"model": "llama3-70b"}})"}) ==
        "t.json: /jobs/0/tokens_per_s_per_gpu: and serving both set the capacity per GPU: give one (got 10)\n");
  CHECK(errors_with({served + R"("serving": {"model": "llama3-405b"}})"}) ==
        "t.json: /jobs/0/serving/model: must be one of \"deepseek-r1\", \"qwen3-235b-a22b\", \"gpt-oss-120b\" or "
        "\"llama3-70b\" (got \"llama3-405b\")\n");
  CHECK(errors_with({served + R"("serving": {"model": "llama3-70b", "tp": 8, "ep": 2}})"}) ==
        "t.json: /jobs/0/serving: ep > 1 needs a mixture of experts (got ep 2) on rubin\n");
  CHECK(errors_with({served + R"("serving": {"model": "deepseek-r1", "tp": 2, "ep": 2, "precision": "fp8"}})"}) ==
        "t.json: /jobs/0/serving: the weights (336.4 GB per GPU) leave no room for a KV cache on 288 GB of HBM on "
        "rubin\n");
  CHECK(errors_with({served + R"("serving": {"model": "llama3-70b", "tp": 8, "tpot_slo_s": 0.001}})"}) ==
        "t.json: /jobs/0/serving: no batch meets tpot_slo_s 0.001 s (batch 1 takes 0.01058 s per token) on rubin\n");
  // Prefill/decode disaggregation (/jobs/*/serving/disaggregation).
  const std::string disagg = served + R"("serving": {"model": "llama3-70b", "tp": 8, "disaggregation": )";
  CHECK(errors_with({disagg + R"({"prefill_instances_per_decode_instance": 0}}})"}) ==
        "t.json: /jobs/0/serving/disaggregation/prefill_instances_per_decode_instance: must be > 0 (got 0)\n");
  CHECK(errors_with({disagg + R"({"kv_handoff_over": "nvlink"}}})"}) ==
        "t.json: /jobs/0/serving/disaggregation/prefill_instances_per_decode_instance: missing required key\n");
  CHECK(errors_with({disagg + R"({"prefill_instances_per_decode_instance": 1, "kv_handoff_over": "pcie"}}})"}) ==
        "t.json: /jobs/0/serving/disaggregation/kv_handoff_over: must be one of \"nvlink\", \"fabric\" or \"free\" "
        "(got \"pcie\")\n");
  CHECK(errors_with({disagg + R"({"prefill_instances_per_decode_instance": 1, "ratio": 2}}})"}) ==
        "t.json: /jobs/0/serving/disaggregation/ratio: unknown key; allowed keys here: "
        "prefill_instances_per_decode_instance, kv_handoff_over (got 2)\n");
  CHECK(errors_with({disagg + R"({"prefill_instances_per_decode_instance": 1}, "tpot_slo_s": 0.001}})"}) ==
        "t.json: /jobs/0/serving: no decode batch meets tpot_slo_s 0.001 s (batch 1 decodes in 0.01057 s per token, "
        "the KV hand-off adds 1.139e-08 s) on rubin\n");
  const std::string one_instance = R"(jobs.0={"name": "s", "kind": "inference", "gpus": 8, "demand_tokens_per_s": 1000, )";
  CHECK(errors_with({one_instance + R"("serving": {"model": "llama3-70b", "tp": 8, "disaggregation": )" +
                     R"({"prefill_instances_per_decode_instance": 1}}})"}) ==
        "t.json: /jobs/0/serving: disaggregation needs at least 2 instances of 8 GPUs (got 1) on rubin\n");
  const std::string service = R"(jobs.0={"name": "s", "kind": "inference", "gpus": 64, "tokens_per_s_per_gpu": 1000, )";
  CHECK(errors_with({service + R"("demand_trace": [[0, 1], [0, 2]], "demand_swing_frac": 0.2})"}) ==
        "t.json: /jobs/0/demand_trace/1/0: must exceed the previous time_h (0) (got 0)\n"
        "t.json: /jobs/0/demand_swing_frac: has no effect with a demand trace (the trace is the demand) (got 0.2)\n");
  CHECK(errors_with({service + R"("demand_trace": [[0, 1]], "demand_trace_file": "d.csv"})"}) ==
        "t.json: /jobs/0/demand_trace_file: give demand_trace or demand_trace_file, not both (got \"d.csv\")\n");
  CHECK(errors_with({service + R"("demand_trace_file": "no-such-demand.csv"})"}) ==
        "t.json: /jobs/0/demand_trace_file: cannot read no-such-demand.csv: No such file or directory (got "
        "\"no-such-demand.csv\")\n");
  CHECK(errors_with({service + R"("demand_tokens_per_s": 5, "arrival_h": 2})"}) ==
        "t.json: /jobs/0/arrival_h: inference services run from the start (got 2)\n");
  CHECK(errors_with({"jobs.0.step_time_s=0"}) == "t.json: /jobs/0/step_time_s: must be > 0 (got 0)\n");
  CHECK(errors_with({"jobs.0.checkpoint.interval_s=\"sometimes\""}) ==
        "t.json: /jobs/0/checkpoint/interval_s: must be a number > 0 or \"auto\" (got \"sometimes\")\n");
  CHECK(errors_with({"jobs.0.scaleout_comm_frac=1.5"}) ==
        "t.json: /jobs/0/scaleout_comm_frac: must be in [0, 1] (got 1.5)\n");
  CHECK(errors_with({"jobs.0.checkpoint.write_s=-1"}) == "t.json: /jobs/0/checkpoint/write_s: must be >= 0 (got -1)\n");
  CHECK(errors_with({"jobs.0.checkpoint.write_s=0"}) ==
        "t.json: /jobs/0/checkpoint/write_s: must be > 0 with interval_s \"auto\": Daly's interval needs a write "
        "cost (give interval_s to checkpoint at a fixed interval) (got 0)\n");
}

TEST_CASE("bad input: every problem is reported at once, in document order", "[unit][bad_input]") {
  CHECK(errors_with({"duration_h=0", "hardware.rack.spare_gpus=-1", "failures.modes.0.scope=\"cpu\"",
                     "jobs.0.gpus=\"many\""}) ==
        "t.json: /duration_h: must be > 0 (got 0)\n"
        "t.json: /hardware/rack/spare_gpus: must be >= 0 (got -1)\n"
        "t.json: /failures/modes/0/scope: must be one of \"gpu\", \"tray\", \"node\", \"rack\", \"nic_port\", "
        "\"link\", \"leaf\", \"spine\", \"core\", \"branch\", \"valve\", \"pump\", \"loop\", \"facility\", \"power_shelf\" or \"object_store\" (got \"cpu\")\n"
        "t.json: /jobs/0/gpus: must be an integer (got \"many\")\n");
}

TEST_CASE("bad input: --set paths that do not exist are errors", "[unit][bad_input]") {
  CHECK(errors_with({"jobs.2.gpus=8"}) == "t.json: --set jobs.2.gpus: /jobs has 1 elements; there is no element 2\n");
  CHECK(errors_with({"jobs.0.gpus.x=1"}) == "t.json: --set jobs.0.gpus.x: /jobs/0/gpus is not an object\n");
}

TEST_CASE("dcsim run on bad input exits 2 and writes nothing", "[unit][bad_input]") {
  const auto dir = std::filesystem::temp_directory_path() / "dcsim-bad-input-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto file = dir / "bad.json";
  std::ofstream(file) << R"({"cluster": {"racks": 0}})";
  dcsim::tools::RunOptions options;
  options.scenario_path = file.string();
  options.out_dir = (dir / "out").string();
  options.quiet = true;
  CHECK(dcsim::tools::run_command(options) == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
  options.scenario_path = (dir / "missing.json").string();
  CHECK(dcsim::tools::run_command(options) == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("bad input: checkpoint storage tiers and restarts in parts", "[unit][bad_input]") {
  const std::string storage =
      R"(storage={"tiers": [{"name": "mem", "kind": "host_memory", "peer_replicas": 1}, {"name": "store", "kind": "object_store"}]})";
  CHECK(errors_with({R"(jobs.0.checkpoint.tiers=["mem"])", "jobs.0.checkpoint.size_gb=100"}) ==
        "t.json: /jobs/0/checkpoint/tiers: needs a /storage block defining the tiers (got [\"mem\"])\n");
  CHECK(errors_with({storage, R"(jobs.0.checkpoint.tiers=["disk"])", "jobs.0.checkpoint.size_gb=100"}) ==
        "t.json: /jobs/0/checkpoint/tiers: names tier \"disk\", which /storage/tiers does not define (got [\"disk\"])\n");
  CHECK(errors_with({storage, R"(jobs.0.checkpoint.tiers=["mem", "store"])"}) ==
        "t.json: /jobs/0/checkpoint/size_gb: is required for a job without a model (\"auto\" derives it from the "
        "model)\n");
  CHECK(errors_with({storage, R"(jobs.0.checkpoint.tiers=["store", "mem"])", "jobs.0.checkpoint.size_gb=100",
                     "jobs.0.checkpoint.async=true"}) ==
        "t.json: /jobs/0/checkpoint/async: needs a host_memory tier first (the snapshot); tiers starts with \"store\" "
        "(object_store) (got true)\n");
  // 12,800 GB over 128 GPUs: 100 GB per GPU; the drain (4 s to the peer at 200 Gb/s, 12.8 s to the store) outlasts
  // 5 s of compute plus the 0.5 s snapshot.
  CHECK(errors_with({storage, R"(jobs.0.checkpoint.tiers=["mem", "store"])", "jobs.0.checkpoint.size_gb=12800",
                     "jobs.0.checkpoint.async=true", "jobs.0.checkpoint.interval_s=5"}) ==
        "t.json: /jobs/0/checkpoint/interval_s: is shorter than the asynchronous drain: interval_s + the blocking "
        "write (5.5 s) must be >= 16.8 s, the time a copy takes to reach the last tier (got 5)\n");
  CHECK(errors_with({R"(operations.restart_s="auto")"}) ==
        "t.json: /jobs/0/checkpoint/tiers: must list the checkpoint's tiers: operations.restart_s \"auto\" loads the "
        "checkpoint from them\n");
  CHECK(errors_with({"operations.init_s=10"}) ==
        "t.json: /operations/init_s: is a part of restart_s \"auto\" (restart_s is a number here) (got 10)\n");
  CHECK(errors_with({R"(jobs.0.checkpoint.async=true)"}) ==
        "t.json: /jobs/0/checkpoint/async: needs tiers (a host_memory tier first) (got true)\n");
  // Object store outages need an object store.
  CHECK(errors_with({"failures.modes.0.scope=\"object_store\""}) ==
        "t.json: /failures/modes/0/scope: is a storage element: the scenario needs an object_store tier in "
        "/storage/tiers (got \"object_store\")\n");
  CHECK(errors_with({R"(storage={"tiers": [{"name": "mem", "kind": "host_memory"}]})",
                     "failures.modes.0.scope=\"object_store\""}) ==
        "t.json: /failures/modes/0/scope: is a storage element: the scenario needs an object_store tier in "
        "/storage/tiers (got \"object_store\")\n");
  CHECK(errors_with({storage, R"(failures.modes=[{"name": "s", "scope": "object_store", "rate_per_gpu_day": 0.001}])"}) ==
        "t.json: /failures/modes/0/rate_per_gpu_day: storage elements take mtbf_h (mean time between failures of one "
        "element) (got 0.001)\n");
  CHECK(errors_with({"failures.modes.0.storage_bandwidth_frac=0.5"}) ==
        "t.json: /failures/modes/0/storage_bandwidth_frac: applies only to scope object_store (got 0.5)\n");
  CHECK(errors_with({storage, R"(failures.modes=[{"name": "s", "scope": "object_store", "mtbf_h": 100, "kind": "gray"}])"}) ==
        "t.json: /failures/modes/0/kind: object stores fail stop (out of reach, or degraded with "
        "storage_bandwidth_frac) (got \"gray\")\n");
  CHECK(errors_with({storage, R"(failures.modes=[{"name": "s", "scope": "object_store", "mtbf_h": 100, "storage_bandwidth_frac": 1}])"}) ==
        "t.json: /failures/modes/0/storage_bandwidth_frac: must be in [0, 1) (got 1)\n");
}

TEST_CASE("bad input: a job's recovery strategy", "[unit][bad_input]") {
  CHECK(errors_with({R"(jobs.0.recovery={"strategy": "ft_dp"})"}) ==
        "t.json: /jobs/0/recovery: missing replica_groups (required for strategy \"ft_dp\" without a model)\n");
  CHECK(errors_with({R"(jobs.0.recovery={"strategy": "ft_dp", "replica_groups": 3})"}) ==
        "t.json: /jobs/0/recovery/replica_groups: must divide the job's gpus (128) (got 3)\n");
  CHECK(errors_with({R"(jobs.0.recovery={"strategy": "ft_dp", "replica_groups": 1})"}) ==
        "t.json: /jobs/0/recovery/replica_groups: must be in [2, 16777216] (got 1)\n");
  CHECK(errors_with({R"(jobs.0.recovery={"strategy": "ft_dp", "replica_groups": 4, "min_groups": 5})"}) ==
        "t.json: /jobs/0/recovery/min_groups: must not exceed replica_groups (4) (got 5)\n");
  CHECK(errors_with({R"(jobs.0.recovery={"stall_s": 10})"}) ==
        "t.json: /jobs/0/recovery/stall_s: applies only to strategy \"ft_dp\" (got 10)\n");
  CHECK(errors_with({R"(jobs.0.recovery={"strategy": "ft_dp", "replica_groups": 2})", "jobs.0.min_gpus_frac=0.5"}) ==
        "t.json: /jobs/0/recovery/strategy: ft_dp does not combine with an elastic job (min_gpus_frac < 1): give "
        "one (got \"ft_dp\")\n");
  // The choices are the registered strategies (a new one adds itself), the default first: "restart", ... or
  // the last.
  const auto& strategies = dcsim::workload::recovery_strategies();
  REQUIRE(strategies.size() >= 2);
  CHECK(strategies.front().name == "restart");
  std::string choices;
  for (std::size_t i = 0; i < strategies.size(); ++i)
    choices += (i == 0 ? "" : i + 1 == strategies.size() ? " or " : ", ") + ('"' + strategies[i].name + '"');
  CHECK(errors_with({R"(jobs.0.recovery={"strategy": "sometimes"})"}) ==
        "t.json: /jobs/0/recovery/strategy: must be one of " + choices + " (got \"sometimes\")\n");
}

TEST_CASE("bad input: a checkpoint too large for its tiers to write within dcsim's limit on durations", "[unit][bad_input]") {
  // 10^24 bytes through 0.001 Gb/s (1.25 x 10^5 bytes/s): a write of 8 x 10^18 s, far beyond 3.6 x 10^9 s.
  CHECK(errors_with({R"(storage={"tiers": [{"name": "store", "kind": "object_store", "write_gbps": 0.001, "capacity_gb": 1e16}]})",
                     R"(jobs.0.checkpoint.tiers=["store"])", "jobs.0.checkpoint.size_gb=1e15"}) ==
        "t.json: /jobs/0/checkpoint/size_gb: makes a checkpoint write or restore last 8e+18 s, beyond dcsim's limit "
        "on durations (10^6 h): check size_gb and the tiers' bandwidths (got 1e+15)\n");
}

TEST_CASE("bad input: storage.network", "[unit][bad_input]") {
  const std::string fabric = R"(fabric={"planes": 8, "port_gbps": 200, "tiers": 2, "switch_radix": 64})";
  CHECK(errors_with({fabric, R"(storage={"network": "shared"})"}) ==
        "t.json: /storage/network: must be one of \"separate\" or \"converged\" (got \"shared\")\n");
  CHECK(errors_with({R"(storage={"network": "converged"})"}) ==
        "t.json: /storage/network: converged needs a /fabric to converge on (got \"converged\")\n");
  CHECK(errors_with({R"(fabric={"planes": 8, "port_gbps": 200, "tiers": 2, "switch_radix": 64, "phase_overlap": "isolated"})",
                     R"(storage={"network": "converged"})"}) ==
        "t.json: /storage/network: converged needs the shared fabric (/fabric/phase_overlap is \"isolated\") "
        "(got \"converged\")\n");
  const auto loaded = load_scenario_text(BASE, "t.json", {fabric, R"(storage={"network": "converged"})"});
  INFO(loaded.errors);
  CHECK(loaded.scenario.has_value());
}
