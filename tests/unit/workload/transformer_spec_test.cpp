// jobs[].model and jobs[].parallelism: decoding and the exact, located messages of every check.
#include "models/workload/transformer_flops.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace dcsim;

namespace {

// 4 racks of 4 HGX A100 servers (128 GPUs), one job of 64 GPUs: a 10B-class GPT (48 layers, h 4096).
const char* SCENARIO = R"({
  "hardware": { "gpu": { "model": "a100-80g" }, "rack": { "kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 4 } },
  "cluster": { "racks": 4 },
  "jobs": [ { "name": "j", "gpus": 64,
    "model": { "layers": 48, "hidden": 4096, "heads": 32, "seq_len": 2048, "vocab": 51200, "global_batch": 64,
               "recompute": "full" },
    "parallelism": { "tp": 8, "pp": 2, "dp": 4 } } ]
})";

tools::LoadedScenario load(const std::vector<std::string>& overrides, const char* text = SCENARIO) {
  return tools::load_scenario_text(text, "t.json", overrides);
}

} // namespace

TEST_CASE("unit: workload: a model job decodes with derived FLOPs and tokens") {
  const auto loaded = load({});
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  const auto& job = loaded.scenario->jobs.at(0);
  REQUIRE(job.model);
  CHECK(job.model->parallelism.dp == 4);
  CHECK(job.model->model.ffn_hidden == 4 * 4096);
  CHECK(job.model->model.kv_heads == 32);
  CHECK(job.tokens_per_step == 64.0 * 2048);
  CHECK(job.model_flops_per_step == workload::model_flops_per_step(job.model->model));
  CHECK(job.step_time_s == 0); // derived later, from the hardware
}

TEST_CASE("unit: workload: dp is derived from the job's GPUs when absent") {
  const auto loaded = load({"jobs.0.parallelism={\"tp\": 8, \"pp\": 2}"});
  REQUIRE(loaded.scenario);
  CHECK(loaded.scenario->jobs.at(0).model->parallelism.dp == 4);
  CHECK(load({"jobs.0.parallelism={\"tp\": 8, \"pp\": 3}"}).errors ==
        "t.json: /jobs/0/parallelism: tp × pp × cp = 8 × 3 × 1 = 24 does not divide the job's 64 GPUs (/jobs/0/gpus), "
        "so dp cannot be derived\n");
}

TEST_CASE("unit: workload: parallel sizes that do not multiply to the job's GPUs are reported with the numbers") {
  CHECK(load({"jobs.0.parallelism.dp=2"}).errors ==
        "t.json: /jobs/0/parallelism: tp × pp × dp × cp = 8 × 2 × 2 × 1 = 32 GPUs, but the job has 64 GPUs "
        "(/jobs/0/gpus)\n");
  CHECK(load({"jobs.0.parallelism.cp=2"}).errors ==
        "t.json: /jobs/0/parallelism: tp × pp × dp × cp = 8 × 2 × 4 × 2 = 128 GPUs, but the job has 64 GPUs "
        "(/jobs/0/gpus)\n");
}

TEST_CASE("unit: workload: every decoding problem of a model job is reported at once") {
  CHECK(load({"jobs.0.parallelism.dp=2", "jobs.0.model.global_batch=61", "jobs.0.step_time_s=3",
              "jobs.0.parallelism.virtual_stages=40"})
            .errors ==
        "t.json: /jobs/0/step_time_s: is derived from model; remove it (or remove model to use a measured value) (got 3)\n"
        "t.json: /jobs/0/parallelism: tp × pp × dp × cp = 8 × 2 × 2 × 1 = 32 GPUs, but the job has 64 GPUs "
        "(/jobs/0/gpus)\n"
        "t.json: /jobs/0/parallelism: pp × virtual_stages = 2 × 40 = 80 pipeline chunks, but the model has only 48 "
        "layers\n"
        "t.json: /jobs/0/model/global_batch: must be a multiple of dp × micro_batch = 2 × 1 = 2 sequences (got 61)\n");
  CHECK(load({"jobs.0.model.global_batch=62"}).errors ==
        "t.json: /jobs/0/model/global_batch: must be a multiple of dp × micro_batch = 4 × 1 = 4 sequences (got 62)\n");
  CHECK(load({"jobs.0.model.global_batch_tokens=131072"}).errors ==
        "t.json: /jobs/0/model/global_batch_tokens: give either global_batch or global_batch_tokens, not both (got "
        "131072)\n");
  CHECK(load({"jobs.0.parallelism.tp=3", "jobs.0.parallelism.dp=1", "jobs.0.gpus=6", "jobs.0.parallelism.cp=1"})
            .errors == "t.json: /jobs/0/parallelism/tp: must divide heads (32) (got 3)\n");
  CHECK(load({"jobs.0.model.top_k=2"}).errors ==
        "t.json: /jobs/0/model/top_k: applies only to mixture-of-experts models (experts ≥ 1) (got 2)\n");
  CHECK(load({"jobs.0.parallelism.ep=2"}).errors ==
        "t.json: /jobs/0/parallelism/ep: needs a mixture-of-experts model (model/experts ≥ 1) (got 2)\n");
  CHECK(load({"jobs.0.model.experts=6", "jobs.0.parallelism.ep=4"}).errors ==
        "t.json: /jobs/0/parallelism/ep: must divide experts (6) (got 4)\n");
}

TEST_CASE("unit: workload: parallelism without a model and measured inputs with a model are errors") {
  const char* measured = R"({
    "hardware": { "gpu": { "model": "a100-80g" }, "rack": { "kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 4 } },
    "cluster": { "racks": 4 },
    "jobs": [ { "name": "j", "gpus": 64, "step_time_s": 2, "model_flops_per_step": 1e18, "parallelism": { "tp": 8 } } ]
  })";
  CHECK(load({}, measured).errors ==
        "t.json: /jobs/0/parallelism: applies only to jobs with a model (/jobs/*/model) (got {\"tp\":8})\n");
  CHECK(load({"jobs.0.model_flops_per_step=1e18", "jobs.0.tokens_per_step=131072"}).errors ==
        "t.json: /jobs/0/model_flops_per_step: is derived from model; remove it (or remove model to use a measured "
        "value) (got 1e+18)\n"
        "t.json: /jobs/0/tokens_per_step: is derived from model; remove it (or remove model to use a measured value) "
        "(got 131072)\n");
}

TEST_CASE("unit: workload: tp × ep groups fit one NVLink domain and divide it, or span whole domains") {
  // Expert parallelism over two HGX servers (8 × 2 = 16 GPUs): its all-to-all crosses the fabric.
  const auto two_servers = load({"jobs.0.model.experts=16", "jobs.0.parallelism.ep=2"});
  INFO(two_servers.errors);
  CHECK(two_servers.errors.empty());
  // tp alone cannot leave the domain.
  CHECK(load({"jobs.0.parallelism.tp=16", "jobs.0.parallelism.pp=1", "jobs.0.parallelism.dp=4",
              "jobs.0.model.heads=64"})
            .errors == "t.json: /jobs/0/parallelism: tp × ep = 16 × 1 = 16 GPUs must fit in one NVLink domain, which "
                       "has 8 usable GPUs in an hgx server (/hardware/rack/gpus_per_node)\n");
  const char* nvl72 = R"({
    "hardware": { "gpu": { "model": "gb200" }, "rack": { "kind": "nvl72", "spare_gpus": 8 } },
    "cluster": { "racks": 6 },
    "jobs": [ { "name": "j", "gpus": 256,
      "model": { "layers": 48, "hidden": 4096, "heads": 32, "seq_len": 2048, "vocab": 51200, "global_batch": 256,
                 "experts": 64 },
      "parallelism": { "tp": 4, "ep": 32 } } ]
  })";
  const auto two_racks = load({}, nvl72); // 4 × 32 = 128 GPUs: two racks of 64 usable
  INFO(two_racks.errors);
  CHECK(two_racks.errors.empty());
  CHECK(load({"jobs.0.parallelism.ep=16"}, nvl72).errors.empty());
  // 4 × 24 = 96 is neither inside one rack of 64 nor whole racks.
  CHECK(load({"jobs.0.gpus=384", "jobs.0.model.experts=48", "jobs.0.model.global_batch=384", "jobs.0.parallelism.ep=24"},
             nvl72)
            .errors == "t.json: /jobs/0/parallelism: tp × ep = 4 × 24 = 96 GPUs must fit in one NVLink domain, which has "
                       "64 usable GPUs in an nvl72 rack (/hardware/rack/gpus − spare_gpus), or span whole domains (a "
                       "multiple of 64 GPUs: the expert all-to-all then crosses the fabric)\n");
  // Without spares a rack has 72 usable GPUs: 4 x 16 = 64 fits but does not divide 72, and the second
  // group would span racks 0 and 1.
  CHECK(load({"hardware.rack.spare_gpus=0", "jobs.0.parallelism.ep=16"}, nvl72).errors ==
        "t.json: /jobs/0/parallelism: tp × ep = 4 × 16 = 64 GPUs must divide the 72 usable GPUs of an NVLink domain "
        "(an nvl72 rack (/hardware/rack/gpus − spare_gpus)), or some groups would straddle two domains\n");
}

TEST_CASE("unit: workload: the busiest expert's share is at least the mean and only for MoE models") {
  CHECK(load({"jobs.0.model.hot_expert_share_frac=0.5"}).errors ==
        "t.json: /jobs/0/model/hot_expert_share_frac: applies only to mixture-of-experts models (experts ≥ 1) (got "
        "0.5)\n");
  CHECK(load({"jobs.0.model.experts=16", "jobs.0.model.hot_expert_share_frac=0.05"}).errors ==
        "t.json: /jobs/0/model/hot_expert_share_frac: must be at least 1/experts = 0.0625 (the busiest expert gets at "
        "least the mean share) (got 0.05)\n");
  const auto hot = load({"jobs.0.model.experts=16", "jobs.0.model.hot_expert_share_frac=0.25"});
  REQUIRE(hot.scenario);
  CHECK(hot.scenario->jobs[0].model->model.hot_expert_share_frac == 0.25);
  CHECK(load({"jobs.0.model.experts=16"}).scenario->jobs[0].model->model.hot_expert_share_frac == 1.0 / 16);
}

TEST_CASE("unit: workload: a precision the GPU lacks is an error") {
  CHECK(load({"jobs.0.model.precision=fp8"}).errors ==
        "t.json: /jobs/0/model/precision: the GPU (a100-80g) has no fp8 peak: /hardware/gpu/fp8_tflops is 0 (got "
        "\"fp8\")\n");
  CHECK(load({"jobs.0.model.precision=fp8", "hardware.gpu.fp8_tflops=624"}).errors.empty());
}

TEST_CASE("unit: workload: a memory footprint above HBM is reported with its parts") {
  // tp 1, pp 1, dp 64, zero 0: N = 48·(12h² + 13h) + V·h = 9,666,232,320 + 209,715,200 = 9,875,947,520
  // parameters: weights 2N = 19.75 GB, gradients 2N = 19.75 GB, optimizer 12N = 118.51 GB. Activations
  // (full recomputation, T = 2048 tokens): 48 layer inputs of 2·T·h = 805,306,368 bytes, one layer's
  // 34·T·h = 285,212,672 bytes, fp32 logits 4·T·V = 419,430,400 bytes: 1.51 GB. Total 159.53 GB.
  CHECK(load({"jobs.0.parallelism={\"tp\": 1, \"zero\": 0}"}).errors ==
        "t.json: /jobs/0: needs 159.5 GB of memory per GPU (weights 19.8, gradients 19.8, optimizer state 118.5, "
        "activations 1.5), more than the GPU's 80 GB of HBM (/hardware/gpu/hbm_gb); recompute, more tp/pp/cp or a "
        "higher zero stage would lower it\n");
  // ZeRO 1 over dp 64 brings the optimizer state to 1.85 GB: 41.4 GB in all, which fits.
  CHECK(load({"jobs.0.parallelism={\"tp\": 1, \"zero\": 1}"}).errors.empty());
}
