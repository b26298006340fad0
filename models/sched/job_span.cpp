#include "models/sched/job_span.hpp"

#include <algorithm>

namespace dcsim::sched {

JobSpan job_span(const fabric::ClosPlan& plan, const std::vector<int>& gpus) {
  JobSpan span;
  if (gpus.empty()) return span;
  std::vector<int> leaves;
  leaves.reserve(gpus.size());
  for (int g : gpus)
    leaves.push_back(plan.leaf_of(g));
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  std::vector<int> pods;
  for (int leaf : leaves)
    pods.push_back(plan.pod_of_leaf(leaf));
  std::sort(pods.begin(), pods.end());
  pods.erase(std::unique(pods.begin(), pods.end()), pods.end());
  span.leaves = static_cast<int>(leaves.size());
  span.pods = static_cast<int>(pods.size());
  span.planes = plan.planes();
  return span;
}

PlacementTopology placement_topology(const fabric::ClosPlan* plan, int domains) {
  PlacementTopology t;
  t.group_of_domain.assign(static_cast<std::size_t>(domains), 0);
  t.pod_of_domain.assign(static_cast<std::size_t>(domains), 0);
  if (!plan) return t;
  const auto& groups = plan->groups();
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int d = groups[g].first_domain; d < groups[g].first_domain + groups[g].domains && d < domains; ++d) {
      t.group_of_domain[static_cast<std::size_t>(d)] = static_cast<int>(g);
      t.pod_of_domain[static_cast<std::size_t>(d)] = plan->pod_of_leaf(groups[g].first_leaf);
    }
  return t;
}

void SpanRecorder::record(int job, const std::vector<int>& gpus) {
  if (!plan_ || job < 0) return;
  if (job >= static_cast<int>(largest_.size())) largest_.resize(static_cast<std::size_t>(job) + 1);
  const JobSpan now = job_span(*plan_, gpus);
  JobSpan& big = largest_[static_cast<std::size_t>(job)];
  big.leaves = std::max(big.leaves, now.leaves);
  big.pods = std::max(big.pods, now.pods);
  big.planes = std::max(big.planes, now.planes);
}

JobSpan SpanRecorder::largest(int job) const {
  return job >= 0 && job < static_cast<int>(largest_.size()) ? largest_[static_cast<std::size_t>(job)] : JobSpan{};
}

} // namespace dcsim::sched
