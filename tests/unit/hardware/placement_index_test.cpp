// PlacementIndex: one count of each workload's GPUs per group, shared by the facility (racks) and the
// fabric tracker (leaves). Checked against a recount from scratch after random owner changes, and the
// hooks' order and arguments.
#include "models/hardware/placement_index.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <tuple>
#include <vector>

using dcsim::hardware::PlacementIndex;

TEST_CASE("placement counts equal a recount from the owners after random moves", "[unit][placement]") {
  constexpr int GPUS = 288, JOBS = 3, RACKS = 4, LEAVES = 9; // 72 GPUs per rack, 32 per leaf
  PlacementIndex index(GPUS, JOBS);
  long count_hook_sum = 0; // Σ (after - before) over every count hook call: the GPUs held in the end
  const int racks = index.add_grouping(RACKS, [](int g) { return g / 72; });
  const int leaves = index.add_grouping(
      LEAVES, [](int g) { return g / 32; },
      [&](int, int, int before, int after) {
        REQUIRE(std::abs(after - before) == 1);
        count_hook_sum += after - before;
      });
  std::vector<int> owner(GPUS, -1);
  std::mt19937 rng(7);
  for (int step = 0; step < 5000; ++step) {
    const int g = static_cast<int>(rng() % GPUS);
    const int to = static_cast<int>(rng() % (JOBS + 1)) - 1;
    owner[static_cast<std::size_t>(g)] = to;
    index.set_owner(g, to);
  }
  long held = 0;
  for (int j = 0; j < JOBS; ++j) {
    std::vector<int> per_rack(RACKS, 0), per_leaf(LEAVES, 0);
    for (int g = 0; g < GPUS; ++g)
      if (owner[static_cast<std::size_t>(g)] == j) {
        ++per_rack[static_cast<std::size_t>(g / 72)];
        ++per_leaf[static_cast<std::size_t>(g / 32)];
        ++held;
      }
    CHECK(index.counts(racks, j) == per_rack);
    CHECK(index.counts(leaves, j) == per_leaf);
  }
  for (int g = 0; g < GPUS; ++g)
    CHECK(index.owner(g) == owner[static_cast<std::size_t>(g)]);
  CHECK(count_hook_sum == held);
}

TEST_CASE("owner hooks run once per real change, in order, after the counts moved", "[unit][placement]") {
  PlacementIndex index(144, 2);
  const int racks = index.add_grouping(2, [](int g) { return g / 72; });
  std::vector<std::tuple<int, int, int, int>> seen; // gpu, from, to, count of `to` on the GPU's rack
  std::vector<int> order;
  index.add_owner_hook([&](int g, int from, int to) {
    seen.emplace_back(g, from, to, to >= 0 ? index.count(racks, to, g / 72) : -1);
    order.push_back(1);
  });
  index.add_owner_hook([&](int, int, int) { order.push_back(2); });
  index.set_owner(80, 1);
  index.set_owner(80, 1); // no change: no hook
  index.set_owner(80, 0);
  index.set_owner(80, -1);
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::make_tuple(80, -1, 1, 1));
  CHECK(seen[1] == std::make_tuple(80, 1, 0, 1));
  CHECK(seen[2] == std::make_tuple(80, 0, -1, -1));
  CHECK(order == std::vector<int>{1, 2, 1, 2, 1, 2});
  CHECK(index.count(racks, 0, 1) == 0);
  CHECK(index.count(racks, 1, 1) == 0);
}

TEST_CASE("a grouping registered after GPUs were placed is refused", "[unit][placement]") {
  PlacementIndex index(72, 1);
  index.set_owner(3, 0);
  CHECK_THROWS_WITH(index.add_grouping(1, [](int) { return 0; }),
                    "PlacementIndex: a grouping registered after GPUs were placed");
}

TEST_CASE("the owners in a range of GPUs: each once, in increasing order, none for free GPUs", "[unit][placement]") {
  PlacementIndex index(16, 4);
  for (const auto& [gpu, owner] : std::vector<std::pair<int, int>>{{1, 3}, {2, 0}, {3, 3}, {5, 2}, {9, 1}})
    index.set_owner(gpu, owner);
  CHECK(index.owners_in({0, 8}) == std::vector<int>{0, 2, 3});
  CHECK(index.owners_in({3, 1}) == std::vector<int>{3});
  CHECK(index.owners_in({6, 3}).empty());
  CHECK(index.owners_in({0, 16}) == std::vector<int>{0, 1, 2, 3});
}
