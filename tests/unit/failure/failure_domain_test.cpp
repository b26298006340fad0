// Failure domains: the registry (every domain file registered, in rank order, its scope words and their
// reach), and the rate a mode adds to a job (lemons included). Each domain's own tests are in domains/.
#include "models/failure/domain_registry.hpp"
#include "tests/support/failure_modes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace dcsim;
using namespace dcsim::failure;

namespace {
hardware::HardwareSpec nvl72(int shelves, int needed) { return test::nvl72_with_shelves(shelves, needed); }
FailureModeSpec mode_of(Domain domain, failure::UnitKind kind, double mtbf_h) {
  FailureModeSpec m;
  m.name = "m";
  m.domain = domain;
  m.unit_kind = kind;
  m.rate_value = mtbf_h;
  return m;
}
} // namespace

TEST_CASE("a job expects the fleet's mean unit rate, lemons included", "[failure][domain]") {
  const auto hw = nvl72(8, 7);
  const hardware::Layout layout(hw, hardware::ClusterSpec{4});
  const auto domains = make_failure_domains(hw, layout, nullptr, nullptr);
  FailureModeSpec tray = mode_of(Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::TRAY), 1000);
  std::vector<int> gpus;
  for (int g = 0; g < 144; ++g) // two racks: 36 trays
    gpus.push_back(g);
  CHECK(job_failure_rate_per_h({tray}, layout, domains, gpus) == Approx(36.0 / 1000).epsilon(1e-12));
  // 15% lemons failing 6x as often: λ̄ = λ (1 + 0.15 x 5) = 1.75 λ (the AIReSim default the issue cites)
  tray.lemon_frac = 0.15;
  tray.lemon_factor = 6;
  CHECK(job_failure_rate_per_h({tray}, layout, domains, gpus) == Approx(1.75 * 36.0 / 1000).epsilon(1e-12));
  REQUIRE(domains.find(Domain::HARDWARE) != nullptr);
  CHECK(domains.find(Domain::HARDWARE)->units(tray) == 4 * 18);
  CHECK(domains.find(Domain::POWER) != nullptr);      // nvl72 racks have power shelves
  CHECK(domains.find(Domain::FABRIC) == nullptr);     // no fabric in this scenario
  FailureModeSpec leaf = mode_of(Domain::FABRIC, failure::unit_kind_of(fabric::ElementKind::LEAF), 1000);
  CHECK_THROWS_WITH(domains.of(leaf), "failure mode m: the scenario has no fabric domain (the scenario checks should "
                                      "have said so)");
}

TEST_CASE("every domain file is registered once, in rank order, with its scope words", "[failure][domain]") {
  // A new domain file adds itself to these lists: the built-in ones must stay, in this relative order.
  auto in_order = [](const std::vector<std::string>& all, const std::vector<std::string>& wanted) {
    std::size_t next = 0;
    for (const auto& name : all)
      if (next < wanted.size() && name == wanted[next]) ++next;
    return next == wanted.size();
  };
  std::vector<std::string> names;
  int last_rank = -1;
  for (const DomainEntry* e : failure_domain_entries()) {
    names.emplace_back(e->domain.name());
    CHECK(e->rank > last_rank); // ranks are distinct: listings do not depend on file names
    last_rank = e->rank;
  }
  // the five files of models/failure/domains/, by rank (not by file name: power_shelf_domain.cpp is "power")
  CHECK(in_order(names, {"hardware", "fabric", "cooling", "power", "storage"}));
  std::vector<std::string> words;
  for (const ScopeWord& w : scope_words()) {
    CHECK(std::find(words.begin(), words.end(), w.word) == words.end()); // a word names one unit kind
    words.emplace_back(w.word);
    CHECK(domain_entry(w.domain).domain == w.domain); // every word's domain is registered
  }
  CHECK(in_order(words, {"gpu", "tray", "node", "rack", "nic_port", "link", "leaf", "spine", "core", "branch", "valve",
                         "pump", "loop", "facility", "power_shelf", "object_store"}));
  CHECK_THROWS_WITH(domain_entry(Domain("toy")), "no failure domain registered as toy");
}

TEST_CASE("a failure's reach is its scope word's: what copies kept on hosts it loses", "[failure][domain]") {
  // storage/checkpoint_plan.cpp keeps a host-memory copy only where the failure does not reach it.
  CHECK(reach_of(mode_of(Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::GPU), 1)) == Reach::HOST);
  CHECK(reach_of(mode_of(Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::NODE), 1)) == Reach::TRAY);
  CHECK(reach_of(mode_of(Domain::HARDWARE, failure::unit_kind_of(hardware::Scope::RACK), 1)) == Reach::RACK);
  CHECK(reach_of(mode_of(Domain::FABRIC, failure::unit_kind_of(fabric::ElementKind::SPINE), 1)) == Reach::NOTHING);
  CHECK(reach_of(mode_of(Domain::COOLING, failure::unit_kind_of(cooling::CoolingElement::VALVE), 1)) == Reach::RACK);
  CHECK(reach_of(mode_of(Domain::COOLING, failure::unit_kind_of(cooling::CoolingElement::LOOP), 1)) == Reach::MANY_RACKS);
  CHECK(reach_of(mode_of(Domain::POWER, failure::unit_kind_of(PowerUnit::SHELF), 1)) == Reach::RACK);
  CHECK(reach_of(mode_of(Domain::STORAGE, failure::UnitKind{0}, 1)) == Reach::NOTHING);
  CHECK_THROWS_WITH(reach_of(mode_of(Domain::STORAGE, failure::UnitKind{3}, 1)), "failure mode m: no scope word of domain storage has "
                                                              "unit kind 3");
}
