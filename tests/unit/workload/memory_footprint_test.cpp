// Memory per GPU against hand calculations (formulas in models/workload/memory_footprint.hpp).
#include "models/workload/memory_footprint.hpp"
#include "models/workload/transformer_flops.hpp"

#include <catch2/catch.hpp>

using namespace dcsim::workload;

TEST_CASE("unit: workload: memory per GPU of a small tp 2 × pp 2 × dp 2 job") {
  TransformerSpec m;
  m.layers = 4;
  m.hidden = 1024;
  m.ffn_hidden = 4096;
  m.heads = m.kv_heads = 8;
  m.seq_len = 1024;
  m.vocab = 1000;
  m.global_batch = 8;
  ParallelismSpec p;
  p.tp = p.pp = p.dp = 2;
  p.zero = 1;
  // Layer: 12h² + 13h = 12,596,224 parameters; a GPU holds 2 layers ÷ tp 2 plus the table V·h ÷ 2:
  // 12,596,224 + 512,000 = 13,108,224 parameters.
  REQUIRE(dense_params_per_layer(m) == 12596224);
  REQUIRE(gpu_params(m, p).total() == 13108224);
  MemoryFootprint f = memory_footprint(m, p);
  CHECK(f.weights_gb == Approx(2 * 13108224 / 1e9));        // bf16
  CHECK(f.gradients_gb == Approx(2 * 13108224 / 1e9));      // bf16
  CHECK(f.optimizer_gb == Approx(12 * 13108224 / 2 / 1e9)); // zero 1 over dp 2
  // Activations, flash attention and sequence parallelism: per token (10h + 4h + 4h + 16h)/2 = 17,408
  // bytes; a micro-batch of 1,024 tokens: 17,825,792 bytes per layer; m = 8/2 = 4 micro-batches, the
  // first stage holds min(4, pp 2) = 2 of them for its 2 layers: 71,303,168 bytes (the last stage: one
  // micro-batch, 35,651,584, plus fp32 logits 4·1024·1000/2 = 2,048,000).
  CHECK(f.activations_gb == Approx(71303168 / 1e9));
  CHECK(f.total_gb() == Approx((4 * 13108224 + 6 * 13108224 + 71303168) / 1e9));

  SECTION("zero 3 shards everything over dp and holds one gathered layer") {
    p.zero = 3;
    f = memory_footprint(m, p);
    CHECK(f.weights_gb == Approx((2 * 13108224 / 2 + 2 * 12596224 / 2) / 1e9));
    CHECK(f.gradients_gb == Approx(2 * 13108224 / 2 / 1e9));
  }
  SECTION("full recomputation keeps each layer's input and one layer's activations") {
    m.recompute = Recompute::FULL;
    f = memory_footprint(m, p);
    // 2 layers × 2 in flight × 1024 tokens × 2h/tp = 4 × 1,048,576, + one layer 17,825,792.
    CHECK(f.activations_gb == Approx((4 * 1048576 + 17825792) / 1e9));
  }
  SECTION("without sequence parallelism the 10h part is replicated; stored scores add 5as/t per token") {
    p.sequence_parallel = false;
    m.flash_attention = false;
    // per token 10h + 24h/2 + 5·8·1024/2 = 10,240 + 12,288 + 20,480 = 43,008 bytes.
    f = memory_footprint(m, p);
    CHECK(f.activations_gb == Approx(2 * 2 * 1024 * 43008.0 / 1e9));
    CHECK(layer_activations(m, p).scores_bytes == Approx(1024 * 20480.0));
  }
}
