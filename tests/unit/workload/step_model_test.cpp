// Step-time model: calibration on Megatron-LM SC'21 Table 1, pipeline bubble, alpha-beta DP exposure,
// degraded scale-out bandwidth, caching by state signature.
#include "models/hardware/spec.hpp"
#include "models/fabric/comm_model.hpp"
#include "models/workload/step_model.hpp"
#include "models/workload/transformer_flops.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace dcsim;
using namespace dcsim::workload;

namespace {

hardware::HardwareSpec decoded_hardware(const sim::Json& json) {
  sim::Problems problems;
  const sim::Node node(json, "/hardware", hardware::hardware_keys(), problems);
  hardware::HardwareSpec hw = hardware::decode_hardware(node);
  REQUIRE(problems.empty());
  return hw;
}

/// SC'21's machine: DGX A100 servers, 8 GPUs each (one NVLink domain), one 200 Gb/s HDR port per GPU.
hardware::HardwareSpec sc21_hardware() {
  return decoded_hardware(sim::Json::parse(
      R"({"gpu": {"model": "a100-80g"}, "rack": {"kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 1}})"));
}

std::vector<std::map<std::string, std::string>> read_csv(const std::string& name) {
  std::ifstream in(std::string(DCSIM_TEST_DATA_DIR) + "/" + name);
  REQUIRE(in);
  std::vector<std::map<std::string, std::string>> rows;
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');)
      cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size(); ++i)
      row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

struct Sc21Row {
  std::string params_b;
  ModelJobSpec job;
  double published_tflops_per_gpu = 0;
};

/// Table 1 rows as jobs. Assumptions (SC'21 §5 and examples/sc21/run_table_1.sh): GPT with gelu MLP of
/// 4h, multi-head attention, tied embeddings, attention scores stored (no FlashAttention in 2021), no
/// sequence parallelism (2022), full recomputation, no distributed optimizer (zero 0), micro-batch,
/// interleaving and DDP overlap per tests/data/megatron_sc21_table1_settings.csv.
std::vector<Sc21Row> sc21_rows() {
  const auto table = read_csv("megatron_sc21_weak_scaling.csv");
  const auto settings = read_csv("megatron_sc21_table1_settings.csv");
  REQUIRE(table.size() == 10);
  REQUIRE(settings.size() == table.size());
  std::vector<Sc21Row> rows;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& r = table[i];
    const auto& s = settings[i];
    REQUIRE(r.at("params_b") == s.at("params_b"));
    auto num = [&](const char* key) { return std::stoi(r.at(key)); };
    Sc21Row row;
    row.params_b = r.at("params_b");
    TransformerSpec& m = row.job.model;
    m.layers = num("layers");
    m.hidden = num("hidden");
    m.ffn_hidden = 4 * m.hidden;
    m.heads = m.kv_heads = num("heads");
    m.seq_len = num("seq_len");
    m.vocab = num("vocab");
    m.global_batch = num("global_batch");
    m.micro_batch = std::stoi(s.at("micro_batch"));
    m.mlp = Mlp::GELU;
    m.tied_embeddings = true;
    m.flash_attention = false;
    m.recompute = Recompute::FULL;
    ParallelismSpec& p = row.job.parallelism;
    p.tp = num("tp");
    p.pp = num("pp");
    p.dp = num("gpus") / (p.tp * p.pp);
    p.virtual_stages = std::stoi(s.at("virtual_stages"));
    p.zero = 0;
    p.sequence_parallel = false;
    p.overlap_grad_reduce = s.at("overlap_grad_reduce") == "1";
    REQUIRE(p.gpus() == num("gpus"));
    row.published_tflops_per_gpu = std::stod(r.at("tflops_per_gpu"));
    rows.push_back(row);
  }
  return rows;
}

/// A network that costs nothing: every collective takes 0 s.
class IdleFreeComm final : public CommModel {
public:
  double time_s(Collective, const CommGroup&, double) const override { return 0.0; }
  std::uint64_t state_signature() const override { return 0; }
};

} // namespace

TEST_CASE("unit: workload: SC'21 Table 1 hardware FLOPs are eq. (3) and model FLOPs its no-recompute form") {
  for (const auto& row : sc21_rows()) {
    const TransformerSpec& m = row.job.model;
    const double B = static_cast<double>(m.global_batch), s = m.seq_len, l = m.layers, h = m.hidden, V = m.vocab;
    const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    const double model = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    CHECK(hardware_flops_per_step(m) == Approx(eq3).epsilon(1e-12));
    CHECK(model_flops_per_step(m) == Approx(model).epsilon(1e-12));
    // Parameters: 12lh² + 13lh + Vh (the paper's count without its s·h position embeddings), which is
    // within 4% of the table's rounded params_b.
    CHECK(total_params(m) == Approx(12 * l * h * h + 13 * l * h + V * h).epsilon(1e-12));
    CHECK(total_params(m) / 1e9 == Approx(std::stod(row.params_b)).epsilon(0.04));
  }
}

TEST_CASE("unit: workload: SC'21 Table 1 TFLOP/s per GPU predicted within 10% on every row") {
  const hardware::HardwareSpec hw = sc21_hardware();
  AlphaBetaCommModel comm(alpha_beta_params(hw));
  std::cout << fmt::format("{:>8} {:>4} {:>4} {:>4} {:>4} {:>2} {:>10} {:>10} {:>7} {:>8} {:>6} {:>6} {:>6} {:>6} {:>7}\n",
                           "params_b", "tp", "pp", "dp", "m", "v", "predicted", "published", "error", "step_s",
                           "bubble", "tp", "pp", "dp", "mem_gb");
  double worst = 0;
  for (const auto& row : sc21_rows()) {
    StepModel model(row.job, hw, comm);
    const StepBreakdown& b = model.evaluate();
    const double error = b.hardware_tflops_per_gpu / row.published_tflops_per_gpu - 1;
    worst = std::max(worst, std::fabs(error));
    std::cout << fmt::format("{:>8} {:>4} {:>4} {:>4} {:>4} {:>2} {:>10.1f} {:>10.0f} {:>+6.1f}% {:>8.2f} {:>6.3f} {:>6.3f} "
                             "{:>6.3f} {:>6.3f} {:>7.1f}\n",
                             row.params_b, row.job.parallelism.tp, row.job.parallelism.pp, row.job.parallelism.dp,
                             b.micro_batches, row.job.parallelism.virtual_stages, b.hardware_tflops_per_gpu,
                             row.published_tflops_per_gpu, 100 * error, b.step_time_s, b.bubble_s / b.step_time_s,
                             b.tp_s / b.step_time_s, b.pp_s / b.step_time_s, b.dp_s / b.step_time_s,
                             b.memory.total_gb());
    INFO(row.params_b << "B: predicted " << b.hardware_tflops_per_gpu << " TFLOP/s per GPU, published "
                      << row.published_tflops_per_gpu);
    CHECK(std::fabs(error) <= 0.10);
    // Every configuration the paper ran fits the A100's 80 GB.
    CHECK(b.memory.total_gb() <= hw.gpu.hbm_gb);
  }
  std::cout << fmt::format("worst error {:.1f}%\n", 100 * worst);
}

namespace {

/// A small dense GPT (gelu, f = 4h, MHA, tied): L layers of 12h² + 13h parameters.
TransformerSpec small_gpt(int layers, int hidden, long long global_batch) {
  TransformerSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = 4 * hidden;
  m.heads = m.kv_heads = 16;
  m.seq_len = 2048;
  m.vocab = 32000;
  m.global_batch = global_batch;
  m.micro_batch = 1;
  return m;
}

} // namespace

TEST_CASE("unit: workload: pipeline bubble is (pp − 1)/(v·m) of the compute on an idle-free network") {
  const hardware::HardwareSpec hw = sc21_hardware();
  const IdleFreeComm comm;
  for (int pp : {2, 4, 8})
    for (int v : {1, 2, 4})
      for (long long m : {8LL, 16LL, 64LL}) {
        ModelJobSpec job;
        job.model = small_gpt(32, 1024, m); // dp = 1, micro_batch = 1: m micro-batches
        job.parallelism.pp = pp;
        job.parallelism.virtual_stages = v;
        const StepBreakdown b = StepModel(job, hw, comm).compute();
        REQUIRE(b.micro_batches == m);
        CHECK(b.tp_s == 0);
        CHECK(b.pp_s == 0);
        CHECK(b.dp_s == 0);
        CHECK(b.bubble_s / b.compute_s == Approx((pp - 1.0) / (v * static_cast<double>(m))).epsilon(1e-12));
        CHECK(b.step_time_s == Approx(b.compute_s + b.bubble_s + b.optimizer_s).epsilon(1e-12));
      }
}

TEST_CASE("unit: workload: halving scale-out bandwidth adds the alpha-beta bandwidth term to exposed DP time") {
  // tp 8 × dp 4 on servers of 8 A100s: each DP group has one rank per server (stride 8 = a server), so
  // its gradient all-reduce is a flat ring over 4 NICs: 2·(3·α + 3/4·S/B) (comm_model.hpp), with
  // S = 2 bytes × parameters per GPU = 2·(L·(12h² + 13h) + V·h)/8, B = 200 Gb/s × 0.9 = 22.5 GB/s,
  // α = 5 µs. Nothing overlaps (overlap_grad_reduce false), so halving B adds 2·3/4·S/B.
  const hardware::HardwareSpec hw = sc21_hardware();
  AlphaBetaCommModel comm(alpha_beta_params(hw));
  ModelJobSpec job;
  job.model = small_gpt(24, 2048, 64);
  job.parallelism.tp = 8;
  job.parallelism.dp = 4;
  job.parallelism.zero = 0;
  job.parallelism.overlap_grad_reduce = false;
  const double h = 2048, l = 24, V = 32000;
  const double S = 2 * (l * (12 * h * h + 13 * h) + V * h) / 8;
  const double B = 200e9 / 8 * 0.9;
  const double alpha = 5e-6;
  REQUIRE(comm.scale_out_bytes_per_s() == Approx(B));
  StepModel model(job, hw, comm);
  const CommGroup dp = model.group(GroupAxis::DP);
  CHECK(dp.ranks == 4);
  CHECK(dp.ranks_per_domain == 1);

  const double full_s = model.evaluate().dp_s;
  CHECK(full_s == Approx(2 * (3 * alpha + 0.75 * S / B)).epsilon(1e-12));
  comm.set_scale_out_bw_frac(0.5);
  const double half_s = model.evaluate().dp_s;
  CHECK(half_s - full_s == Approx(2 * 0.75 * S / B).epsilon(1e-9));

  SECTION("one failed plane of 8 slows the DP transfer by the lost 1/8 of the bandwidth") {
    comm.set_scale_out_bw_frac(7.0 / 8.0);
    const double degraded_s = model.evaluate().dp_s;
    CHECK(degraded_s - 6 * alpha == Approx((full_s - 6 * alpha) * 8.0 / 7.0).epsilon(1e-12));
  }
}

TEST_CASE("unit: workload: step results are cached under the state signature and recomputed when it changes") {
  const hardware::HardwareSpec hw = sc21_hardware();
  AlphaBetaCommModel comm(alpha_beta_params(hw));
  ModelJobSpec job;
  job.model = small_gpt(24, 2048, 64);
  job.parallelism.tp = 8;
  job.parallelism.dp = 4;
  StepModel model(job, hw, comm);

  const StepBreakdown& healthy = model.evaluate();
  CHECK(&model.evaluate() == &healthy);
  CHECK(model.cached_states() == 1);
  const std::uint64_t healthy_signature = comm.state_signature();

  comm.set_scale_out_bw_frac(0.5);
  CHECK(comm.state_signature() != healthy_signature);
  const StepBreakdown& degraded = model.evaluate();
  CHECK(model.cached_states() == 2);
  CHECK(degraded.step_time_s > healthy.step_time_s);

  comm.set_scale_out_bw_frac(1.0);
  CHECK(comm.state_signature() == healthy_signature);
  CHECK(&model.evaluate() == &healthy);
  CHECK(model.cached_states() == 2);

  // A GPU throttled to half its clock doubles the compute of the (synchronous) job.
  const StepBreakdown& throttled = model.evaluate(0.5);
  CHECK(model.cached_states() == 3);
  CHECK(throttled.compute_s == Approx(2 * healthy.compute_s).epsilon(1e-12));
  CHECK(throttled.mfu_frac < healthy.mfu_frac);
}

TEST_CASE("unit: workload: MFU uses model FLOPs and the peak of the job's precision") {
  const hardware::HardwareSpec hw = decoded_hardware(sim::Json::parse(R"({"gpu": {"model": "h100-sxm"},
      "rack": {"kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 1}})"));
  const AlphaBetaCommModel comm(alpha_beta_params(hw));
  ModelJobSpec job;
  job.model = small_gpt(24, 2048, 64);
  job.model.recompute = Recompute::FULL;
  job.parallelism.tp = 8;
  job.parallelism.dp = 4;
  const StepBreakdown bf16 = StepModel(job, hw, comm).compute();
  CHECK(bf16.peak_tflops == 989);
  CHECK(bf16.mfu_frac ==
        Approx(bf16.model_flops_per_step / (bf16.step_time_s * 32 * 989e12)).epsilon(1e-12));
  CHECK(bf16.hfu_frac / bf16.mfu_frac == Approx(bf16.hardware_flops_per_step / bf16.model_flops_per_step));
  CHECK(bf16.hardware_flops_per_step > bf16.model_flops_per_step);
  job.model.precision = hardware::Precision::FP8;
  const StepBreakdown fp8 = StepModel(job, hw, comm).compute();
  CHECK(fp8.peak_tflops == 1979);
  CHECK(fp8.compute_s < bf16.compute_s);
}
