// The cluster ledger must put each GPU-microsecond in the category the GPU was in at that time. Its
// conservation law (categories sum to GPUs x duration) holds by construction (every dt is added to some
// category), so these tests check where the time lands, against numbers worked out by hand.
#include "models/ledger/cluster_ledger.hpp"

#include "sim/rng.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>

using namespace dcsim;
using sched::Category;

namespace {

constexpr long long HOUR = static_cast<long long>(sim::TICKS_PER_S) * 3600; // µs per hour

// GPU·µs as a printable integer (Catch cannot print __int128); the values here fit in 64 bits.
long long ticks(ledger::GpuTicks t) { return static_cast<long long>(t); }

sim::Tick at_h(int hours) { return sim::hours_to_ticks(hours); }

} // namespace

TEST_CASE("a GPU idle 2 h, allocated 3 h, down 1 h gives exactly those GPU-µs per category",
          "[unit][cluster_ledger]") {
  std::vector<Category> cat(1, Category::IDLE);
  ledger::ClusterLedger ledger(1, [&cat](int g) { return cat[static_cast<std::size_t>(g)]; }, 0);
  cat[0] = Category::ALLOCATED;
  ledger.touch(0, at_h(2));
  cat[0] = Category::REPAIR;
  ledger.touch(0, at_h(5));
  ledger.finish(at_h(6));
  // 1 GPU: [0,2) h idle, [2,5) h allocated, [5,6) h repair; nothing spare.
  CHECK(ticks(ledger.gpu_ticks(Category::IDLE)) == 2 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::ALLOCATED)) == 3 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::REPAIR)) == 1 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::SPARE)) == 0);
  CHECK(ledger.count(Category::REPAIR) == 1);
  CHECK(ledger.count(Category::IDLE) == 0);
}

TEST_CASE("GPU-time of several GPUs lands in each GPU's own category, from a non-zero start",
          "[unit][cluster_ledger]") {
  // Three GPUs, ledger opened at t = 10 h (times before the start must not count):
  //   GPU 0: spare from the start, allocated at 12 h, repair at 15 h, spare again at 16 h, end 20 h
  //   GPU 1: allocated from the start throughout
  //   GPU 2: idle from the start, repair at 11 h, idle at 19 h
  // Expected (GPU-h):
  //   ALLOCATED = GPU0 [12,15) 3 + GPU1 [10,20) 10            = 13
  //   REPAIR    = GPU0 [15,16) 1 + GPU2 [11,19) 8             =  9
  //   SPARE     = GPU0 [10,12) 2 + GPU0 [16,20) 4             =  6
  //   IDLE      = GPU2 [10,11) 1 + GPU2 [19,20) 1             =  2      (sum 30 = 3 GPUs x 10 h)
  std::vector<Category> cat{Category::SPARE, Category::ALLOCATED, Category::IDLE};
  ledger::ClusterLedger ledger(3, [&cat](int g) { return cat[static_cast<std::size_t>(g)]; }, at_h(10));
  auto set = [&](int gpu, Category c, int hour) {
    cat[static_cast<std::size_t>(gpu)] = c;
    ledger.touch(gpu, at_h(hour));
  };
  set(2, Category::REPAIR, 11);
  set(0, Category::ALLOCATED, 12);
  set(0, Category::REPAIR, 15);
  set(0, Category::SPARE, 16);
  ledger.touch(1, at_h(17)); // GPU 1's category did not change: nothing moves
  set(2, Category::IDLE, 19);
  ledger.finish(at_h(20));
  CHECK(ticks(ledger.gpu_ticks(Category::ALLOCATED)) == 13 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::REPAIR)) == 9 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::SPARE)) == 6 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::IDLE)) == 2 * HOUR);
  CHECK(ledger.count(Category::ALLOCATED) == 1);
  CHECK(ledger.count(Category::SPARE) == 1);
  CHECK(ledger.count(Category::IDLE) == 1);
  CHECK(ledger.count(Category::REPAIR) == 0);
}

TEST_CASE("a category change seen late is charged from the touch, and a round trip at one instant is free",
          "[unit][cluster_ledger]") {
  std::vector<Category> cat(1, Category::IDLE);
  ledger::ClusterLedger ledger(1, [&cat](int g) { return cat[static_cast<std::size_t>(g)]; }, 0);
  // Down and back up at the same instant (1 h): zero time in REPAIR.
  cat[0] = Category::REPAIR;
  ledger.touch(0, at_h(1));
  cat[0] = Category::IDLE;
  ledger.touch(0, at_h(1));
  // The category flips to ALLOCATED, but the ledger is only told at 4 h: [0,4) h stays IDLE (the
  // ledger reads the category at touch time; World must touch at the instant of every change).
  cat[0] = Category::ALLOCATED;
  ledger.touch(0, at_h(4));
  ledger.finish(at_h(5));
  CHECK(ticks(ledger.gpu_ticks(Category::REPAIR)) == 0);
  CHECK(ticks(ledger.gpu_ticks(Category::IDLE)) == 4 * HOUR);
  CHECK(ticks(ledger.gpu_ticks(Category::ALLOCATED)) == 1 * HOUR);
}

TEST_CASE("random category changes: each category's GPU-µs equal a per-GPU replay of the same history",
          "[unit][cluster_ledger]") {
  // Independent reference: per GPU, sum (time of leaving - time of entering) for each state it was in,
  // rather than the ledger's count x dt over all GPUs. A bug that charges a change to the wrong category
  // (the new one instead of the old), or misses a GPU's initial category, breaks the equality.
  const int gpus = 50;
  std::vector<Category> cat(gpus, Category::IDLE);
  for (int g = 0; g < gpus; g += 3)
    cat[static_cast<std::size_t>(g)] = Category::SPARE; // not all GPUs start in the same category
  const sim::Tick start = 7;
  ledger::ClusterLedger ledger(gpus, [&cat](int g) { return cat[static_cast<std::size_t>(g)]; }, start);
  std::vector<sim::Tick> since(gpus, start);
  std::array<long long, ledger::CATEGORIES> expected{};
  sim::Rng rng(9);
  sim::Tick now = start;
  for (int i = 0; i < 20000; ++i) {
    now += static_cast<sim::Tick>(rng.below(1'000'000));
    const auto g = static_cast<std::size_t>(rng.below(gpus));
    const auto next = static_cast<Category>(rng.below(4));
    if (next != cat[g]) {
      expected[static_cast<std::size_t>(cat[g])] += now - since[g];
      since[g] = now;
    }
    cat[g] = next;
    ledger.touch(static_cast<int>(g), now);
  }
  ledger.finish(now);
  for (std::size_t g = 0; g < cat.size(); ++g)
    expected[static_cast<std::size_t>(cat[g])] += now - since[g];
  for (int c = 0; c < ledger::CATEGORIES; ++c) {
    INFO("category " << c);
    CHECK(ticks(ledger.gpu_ticks(static_cast<Category>(c))) == expected[static_cast<std::size_t>(c)]);
    CHECK(ledger.count(static_cast<Category>(c)) ==
          std::count(cat.begin(), cat.end(), static_cast<Category>(c)));
  }
}
