// A strong identifier: an integer that names one kind of thing (a job, a GPU, a failure cause, a kind of
// unit) and cannot be mistaken for another kind's. StrongId<JobTag> and StrongId<GpuTag> are distinct types:
// neither converts to the other nor to or from int implicitly (a static_assert in
// tests/unit/sim/strong_id_test.cpp keeps it so). The parts pass them across their interfaces; inside a
// part, where an index addresses an array, `value()` and `index()` give the integer back. The tag names the
// kind and is declared where that kind lives (sim/ knows none of them).
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <type_traits>

namespace dcsim::sim {

template <class Tag, class Rep = int> class StrongId {
public:
  static_assert(std::is_integral_v<Rep>, "StrongId: an integer underneath");
  using rep_type = Rep;

  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep value) : value_(value) {}

  constexpr Rep value() const { return value_; }
  /// As an index into an array of this kind of thing (the value must be >= 0).
  constexpr std::size_t index() const { return static_cast<std::size_t>(value_); }

  friend constexpr bool operator==(StrongId, StrongId) = default;
  friend constexpr auto operator<=>(StrongId, StrongId) = default;

private:
  Rep value_{};
};

} // namespace dcsim::sim

template <class Tag, class Rep> struct std::hash<dcsim::sim::StrongId<Tag, Rep>> {
  std::size_t operator()(dcsim::sim::StrongId<Tag, Rep> id) const noexcept { return std::hash<Rep>{}(id.value()); }
};
