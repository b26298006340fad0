// The failure domains a scenario's modes may strike, each registered by its own file under
// failure/domains/ (the build lists them: models/CMakeLists.txt writes failure/domain_list.inc), as ns-3
// models register a TypeId and SimGrid plugins register themselves. An entry says:
//   name, rank     the domain's name (failure::Domain) and its place in listings (`dcsim describe`, the
//                  scope key's choices, the order domains are built in)
//   words          its scope words: the value of /failures/modes/*/scope, the unit kind it names (an int of
//                  the domain's own enum) and what a failure of such a unit takes with it (Reach)
//   scope_help     its part of the scope key's meaning
//   unavailable    why the scenario cannot have this scope word (empty: it can)
//   check          problems of a mode's other keys for this domain (its fault kinds, say)
//   make           the domain's runtime, or null where the scenario has none of it
// A domain file defines `const DomainEntry& NAME_domain_entry()` (NAME_domain.cpp).
#pragma once

#include "models/failure/failure_domain.hpp"
#include "sim/json_reader.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::failure {

/// A scope word of the scenario: the domain it names, the domain's unit kind (hardware::Scope,
/// fabric::ElementKind, cooling::CoolingElement, PowerUnit, ...: UnitKind) and the reach of a failure.
struct ScopeWord {
  std::string_view word;
  Domain domain;
  UnitKind unit_kind;
  Reach reach;
};

/// What the rest of the scenario offers the failure modes' scopes.
struct ScopeContext {
  hardware::RackKind rack_kind;
  bool has_fabric, has_cooling, has_object_store;
};

struct DomainEntry {
  Domain domain;
  int rank;
  std::vector<ScopeWord> words;
  std::string scope_help;
  std::function<std::string(const ScopeContext& c, std::string_view word)> unavailable;
  std::function<void(const sim::Node& m, const FailureModeSpec& mode)> check;
  std::function<std::unique_ptr<FailureDomain>(const DomainContext& c)> make;
};

/// Every registered domain, by rank.
const std::vector<const DomainEntry*>& failure_domain_entries();
/// The entry of that domain (std::logic_error if none registered it).
const DomainEntry& domain_entry(Domain domain);
/// Every scope word, in the order `dcsim describe` lists them.
const std::vector<ScopeWord>& scope_words();
/// What a failure of the mode's unit takes with it (its scope word's reach).
Reach reach_of(const FailureModeSpec& mode);

} // namespace dcsim::failure
