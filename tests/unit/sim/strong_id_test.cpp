// sim/strong_id.hpp: distinct kinds of identifier do not convert into one another nor from or to int, and
// keep the integer's order, equality and hash.
#include "sim/strong_id.hpp"
#include "models/failure/spec.hpp"
#include "models/hardware/ids.hpp"
#include "models/sched/job_id.hpp"
#include "models/workload/loss_cause.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <type_traits>
#include <unordered_set>

using namespace dcsim;

namespace {
struct TagA;
struct TagB;
using A = sim::StrongId<TagA>;
using B = sim::StrongId<TagB>;
} // namespace

// No implicit conversion between kinds, nor from or to their integer.
static_assert(!std::is_convertible_v<A, B>);
static_assert(!std::is_constructible_v<B, A>);
static_assert(!std::is_convertible_v<int, A>);
static_assert(!std::is_convertible_v<A, int>);
static_assert(std::is_constructible_v<A, int>); // explicitly, at an edge
// The kinds the parts exchange.
static_assert(!std::is_convertible_v<sched::JobId, hardware::GpuIndex>);
static_assert(!std::is_convertible_v<hardware::GpuIndex, sched::JobId>);
static_assert(!std::is_convertible_v<int, sched::JobId>);
static_assert(!std::is_convertible_v<int, hardware::GpuIndex>);
static_assert(!std::is_convertible_v<workload::FailureCause, failure::UnitKind>);
static_assert(!std::is_convertible_v<failure::UnitKind, workload::FailureCause>);
static_assert(!std::is_convertible_v<int, workload::FailureCause>);
static_assert(!std::is_convertible_v<int, failure::UnitKind>);
static_assert(sizeof(sched::JobId) == sizeof(int)); // free: the integer and nothing else
static_assert(std::is_trivially_copyable_v<hardware::GpuIndex>);

TEST_CASE("strong id: value, index, equality and order follow the integer", "[unit][sim]") {
  constexpr A three{3};
  static_assert(three.value() == 3 && three.index() == 3);
  CHECK(A{} == A{0});
  CHECK(A{2} != A{3});
  CHECK(A{2} < A{3});
  CHECK(A{-1} < A{0});
  const std::set<A> ordered{A{5}, A{1}, A{3}};
  CHECK(ordered.begin()->value() == 1);
  CHECK(ordered.rbegin()->value() == 5);
}

TEST_CASE("strong id: hashes as its integer, so equal ids meet in a hash set", "[unit][sim]") {
  std::unordered_set<B> seen{B{7}, B{7}, B{8}};
  CHECK(seen.size() == 2);
  CHECK(seen.count(B{7}) == 1);
  CHECK(std::hash<B>{}(B{42}) == std::hash<int>{}(42));
}
