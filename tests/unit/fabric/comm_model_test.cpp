// Alpha-beta collective costs, against hand calculations (formulas in models/fabric/comm_model.hpp).
#include "models/fabric/comm_model.hpp"

#include <catch2/catch.hpp>

using namespace dcsim::fabric;

namespace {
// 100 GB/s NVLink with 1 µs steps, 10 GB/s network with 5 µs steps.
AlphaBetaCommModel model() { return AlphaBetaCommModel({100e9, 1e-6, 10e9, 5e-6}); }
CommGroup group(int ranks, int per_domain) { return CommGroup{GroupAxis::DP, ranks, 1, per_domain, 1}; }
} // namespace

TEST_CASE("unit: fabric: ranks of a group sharing an NVLink domain") {
  CHECK(ranks_per_domain(8, 1, 8) == 8);   // tp 8 in an HGX server
  CHECK(ranks_per_domain(32, 1, 8) == 8);  // dp 32 with tp 1: 8 per server
  CHECK(ranks_per_domain(128, 8, 72) == 9); // dp with tp 8 in a 72-GPU rack
  CHECK(ranks_per_domain(128, 8, 64) == 8);
  CHECK(ranks_per_domain(4, 8, 8) == 1);   // stride of a whole server
  CHECK(ranks_per_domain(2, 256, 72) == 1);
  CHECK(ranks_per_domain(1, 1, 8) == 1);
}

TEST_CASE("unit: fabric: alpha-beta collective times") {
  const AlphaBetaCommModel m = model();
  const double S = 1e9;
  // One domain of 8: ring all-reduce 2·(7·1 µs + 7/8·S/100 GB/s) = 2·(7e-6 + 8.75e-3).
  CHECK(m.time_s(Collective::ALL_REDUCE, group(8, 8), S) == Approx(2 * (7e-6 + 8.75e-3)));
  // 4 domains, one member each: 2·(3·5 µs + 3/4·S/10 GB/s).
  CHECK(m.time_s(Collective::ALL_REDUCE, group(4, 1), S) == Approx(2 * (15e-6 + 0.075)));
  // 32 ranks, 8 per domain: intra 2·(7e-6 + 8.75e-3) + inter over 4 domains on S/8: 2·(15e-6 + 3/4·0.0125).
  CHECK(m.time_s(Collective::ALL_REDUCE, group(32, 8), S) ==
        Approx(2 * (7e-6 + 8.75e-3) + 2 * (15e-6 + 0.75 * 0.0125)));
  // Reduce-scatter and all-gather are half an all-reduce.
  CHECK(m.time_s(Collective::REDUCE_SCATTER, group(32, 8), S) ==
        Approx(m.time_s(Collective::ALL_REDUCE, group(32, 8), S) / 2));
  CHECK(m.time_s(Collective::ALL_GATHER, group(32, 8), S) == m.time_s(Collective::REDUCE_SCATTER, group(32, 8), S));
  // All-to-all of 8 in one domain: 7·1 µs + 7/8·S/100 GB/s.
  CHECK(m.time_s(Collective::ALL_TO_ALL, group(8, 8), S) == Approx(7e-6 + 8.75e-3));
  // All-to-all of 16 over 2 domains: 15·5 µs + max(7/16·S/100 GB/s, 8/16·S/10 GB/s).
  CHECK(m.time_s(Collective::ALL_TO_ALL, group(16, 8), S) == Approx(75e-6 + 0.05));
  // Send/recv: across domains and inside one.
  CHECK(m.time_s(Collective::SEND_RECV, group(2, 1), S) == Approx(5e-6 + 0.1));
  CHECK(m.time_s(Collective::SEND_RECV, group(2, 2), S) == Approx(1e-6 + 0.01));
  // A group of one rank costs nothing.
  CHECK(m.time_s(Collective::ALL_REDUCE, group(1, 1), S) == 0);
}

TEST_CASE("unit: fabric: the state signature follows the scale-out bandwidth") {
  AlphaBetaCommModel m = model();
  const auto healthy = m.state_signature();
  m.set_scale_out_bw_frac(7.0 / 8.0);
  CHECK(m.state_signature() != healthy);
  CHECK(m.time_s(Collective::SEND_RECV, group(2, 1), 1e9) == Approx(5e-6 + 1e9 / (10e9 * 7 / 8)));
  m.set_scale_out_bw_frac(1.0);
  CHECK(m.state_signature() == healthy);
  CHECK(AlphaBetaCommModel({100e9, 1e-6, 20e9, 5e-6}).state_signature() != healthy);
}
