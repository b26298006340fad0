#include "sim/name.hpp"

#include <functional>
#include <unordered_set>

namespace dcsim::sim {

namespace {

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

std::unordered_set<std::string, Hash, std::equal_to<>>& pool() {
  static std::unordered_set<std::string, Hash, std::equal_to<>> names; // nodes never move: stable pointers
  return names;
}

} // namespace

Name::Name() {
  static const std::string* const empty = Name(std::string_view()).text_;
  text_ = empty;
}

Name::Name(std::string_view text) {
  auto& names = pool();
  auto it = names.find(text);
  if (it == names.end()) it = names.emplace(text).first;
  text_ = &*it;
}

} // namespace dcsim::sim
