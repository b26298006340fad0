// The failure domains' registry, their factory and the job failure rate over every domain; each domain's
// own equations are in its file under failure/domains/.
#include "models/failure/domain_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dcsim::failure {

// Every file failure/domains/NAME.cpp defines NAME_entry(); the build lists them (domain_list.inc).
#define DCSIM_FAILURE_DOMAIN(NAME) const DomainEntry& NAME##_entry();
#include "models/failure/domain_list.inc"
#undef DCSIM_FAILURE_DOMAIN

const std::vector<const DomainEntry*>& failure_domain_entries() {
  static const std::vector<const DomainEntry*> all = [] {
    std::vector<const DomainEntry*> entries{
#define DCSIM_FAILURE_DOMAIN(NAME) &NAME##_entry(),
#include "models/failure/domain_list.inc"
#undef DCSIM_FAILURE_DOMAIN
    };
    std::stable_sort(entries.begin(), entries.end(),
                     [](const DomainEntry* a, const DomainEntry* b) { return a->rank < b->rank; });
    return entries;
  }();
  return all;
}

const DomainEntry& domain_entry(Domain domain) {
  for (const DomainEntry* e : failure_domain_entries())
    if (e->domain == domain) return *e;
  throw std::logic_error(fmt::format("no failure domain registered as {}", domain.name()));
}

const std::vector<ScopeWord>& scope_words() {
  static const std::vector<ScopeWord> words = [] {
    std::vector<ScopeWord> all;
    for (const DomainEntry* e : failure_domain_entries())
      all.insert(all.end(), e->words.begin(), e->words.end());
    return all;
  }();
  return words;
}

Reach reach_of(const FailureModeSpec& mode) {
  for (const ScopeWord& w : scope_words())
    if (w.domain == mode.domain && w.unit_kind == mode.unit_kind) return w.reach;
  throw std::logic_error(fmt::format("failure mode {}: no scope word of domain {} has unit kind {}", mode.name,
                                     mode.domain.name(), mode.unit_kind.value()));
}

FailureDomain* FailureDomains::find(Domain domain) const {
  for (const auto& d : domains_)
    if (d->domain() == domain) return d.get();
  return nullptr;
}

FailureDomain& FailureDomains::of(const FailureModeSpec& mode) const {
  if (FailureDomain* d = find(mode.domain)) return *d;
  throw std::logic_error(fmt::format("failure mode {}: the scenario has no {} domain (the scenario checks "
                                     "should have said so)",
                                     mode.name, mode.domain.name()));
}

FailureDomains make_failure_domains(const hardware::HardwareSpec& hardware, const hardware::Layout& layout,
                                    const fabric::FabricState* fabric, const cooling::CoolingSpec* cooling,
                                    const std::vector<std::string>& object_stores, DomainHooks hooks) {
  const DomainContext context{&hardware, &layout, fabric, cooling, object_stores, std::move(hooks)};
  std::vector<std::unique_ptr<FailureDomain>> domains;
  for (const DomainEntry* e : failure_domain_entries())
    if (auto d = e->make(context)) domains.push_back(std::move(d));
  return FailureDomains(std::move(domains));
}

double job_failure_rate_per_h(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout,
                              const FailureDomains& domains, const std::vector<int>& gpus) {
  double rate = 0;
  for (const auto& mode : modes)
    rate += domains.of(mode).job_rate_per_h(mode, mode.mean_unit_rate_per_h(layout), gpus);
  return rate;
}

} // namespace dcsim::failure
