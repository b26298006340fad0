#include "models/workload/recovery_spec.hpp"

#include "models/workload/transformer_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::workload {

using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

const KeyTable& recovery_keys() {
  static const KeyTable table{
      "jobs", "/jobs/*/recovery",
      "how a training job recovers from a failure of its GPUs (models/workload/recovery_spec.hpp)",
      {
          KeyDef{"strategy", ValueType::STRING, "", "restart",
                 "restart: any failure interrupts the job (work since the last checkpoint is lost, then "
                 "detection, recovery, restart); ft_dp: fault-tolerant data parallelism, the replica groups "
                 "struck drop out after a stall and the others train on at a smaller global batch until they "
                 "rejoin",
                 {}, {"restart", "ft_dp"}},
          KeyDef{"replica_groups", ValueType::INTEGER, "", nullptr,
                 "ft_dp: data-parallel replica groups N (>= 2); it divides the job's GPUs, and with a model "
                 "the parallelism's dp",
                 sim::between(2, 1 << 24), {}, "with a model: its dp; required without"},
          KeyDef{"min_groups", ValueType::INTEGER, "", 1,
                 "ft_dp: fewest groups that keep training; a failure leaving fewer restarts the whole job",
                 sim::between(1, 1 << 24)},
          KeyDef{"stall_s", ValueType::NUMBER, "s", 30.0,
                 "ft_dp: the whole job makes no progress this long when groups drop (quorum re-formed; "
                 "ledger detection)",
                 sim::non_negative()},
          KeyDef{"rejoin_s", ValueType::NUMBER, "s", 30.0,
                 "ft_dp: the whole job makes no progress this long when repaired groups rejoin (weights "
                 "from a live peer; ledger restart)",
                 sim::non_negative()},
      }};
  return table;
}

RecoverySpec decode_recovery(const sim::Node& job, int gpus, const ModelJobSpec* model, double min_gpus_frac) {
  RecoverySpec r;
  const sim::Node n = job.object("recovery", recovery_keys());
  if (n.string("strategy") != "ft_dp") {
    for (const char* key : {"replica_groups", "min_groups", "stall_s", "rejoin_s"})
      if (n.has(key)) n.problem(key, "applies only to strategy \"ft_dp\"");
    return r;
  }
  r.strategy = RecoveryStrategy::FT_DP;
  r.min_groups = n.int32("min_groups");
  r.stall_s = n.number("stall_s");
  r.rejoin_s = n.number("rejoin_s");
  if (model) {
    r.inner_ranks = model->parallelism.tp * model->parallelism.cp;
    r.dp = model->parallelism.dp;
  } else {
    r.dp = gpus;
  }
  if (n.has("replica_groups")) {
    r.replica_groups = std::max(2, n.int32("replica_groups")); // out of bounds: reported by the table
  } else if (model) {
    r.replica_groups = r.dp;
  } else {
    n.problem_here("missing replica_groups (required for strategy \"ft_dp\" without a model)");
    r.replica_groups = 2;
  }
  if (model && r.dp < 2)
    n.problem_here(fmt::format("ft_dp needs at least 2 data-parallel replicas (the model's dp is {})", r.dp));
  else if (model && r.dp % r.replica_groups != 0)
    n.problem("replica_groups", fmt::format("must divide the model's dp ({})", r.dp));
  else if (!model && gpus > 0 && gpus % r.replica_groups != 0)
    n.problem("replica_groups", fmt::format("must divide the job's gpus ({})", gpus));
  if (r.min_groups > r.replica_groups)
    n.problem("min_groups", fmt::format("must not exceed replica_groups ({})", r.replica_groups));
  if (min_gpus_frac < 1)
    n.problem("strategy", "ft_dp does not combine with an elastic job (min_gpus_frac < 1): give one");
  if (r.dp < r.replica_groups || r.dp % r.replica_groups != 0) { // keep group_of_rank defined after a problem
    r.dp = r.replica_groups;
    r.inner_ranks = 1;
  }
  return r;
}

} // namespace dcsim::workload
