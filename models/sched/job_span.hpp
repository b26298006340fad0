// A job's span on the fabric, and the placement topology the policies read from the fabric's plan.
//
// Span of a set of GPUs (fabric/clos_plan.hpp): leaves = distinct leaf switches its GPUs attach to in one
// plane (every plane is a copy, so each plane has as many), pods = distinct pods of those leaves (1 with
// one or two tiers), planes = planes its GPUs have ports on (all of them: every GPU is cabled to every
// plane; a failed plane is not subtracted). A job's output columns span_leaves, span_pods and
// span_planes are the largest span over the placements it had (each scheduler placement, resize and
// domain swap), so a job moved onto a worse spread reports it.
#pragma once

#include "models/fabric/clos_plan.hpp"
#include "models/sched/placement_policy.hpp"

#include <vector>

namespace dcsim::sched {

struct JobSpan {
  int leaves = 0;
  int pods = 0;
  int planes = 0;
};

JobSpan job_span(const fabric::ClosPlan& plan, const std::vector<int>& gpus);

/// Per domain: its rail group (plan.groups()) and the pod of the group's first leaf; without a plan every
/// domain is in group 0, pod 0.
PlacementTopology placement_topology(const fabric::ClosPlan* plan, int domains);

/// The largest span of each job over the placements recorded.
class SpanRecorder {
public:
  explicit SpanRecorder(const fabric::ClosPlan* plan) : plan_(plan) {}
  /// The job now holds `gpus`.
  void record(int job, const std::vector<int>& gpus);
  /// Largest span so far (zeros when never recorded); nullptr plan: no span.
  JobSpan largest(int job) const;
  bool has_fabric() const { return plan_ != nullptr; }

private:
  const fabric::ClosPlan* plan_;
  std::vector<JobSpan> largest_;
};

} // namespace dcsim::sched
