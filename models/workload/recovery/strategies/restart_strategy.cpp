// Recovery strategy restart, the default: it absorbs nothing. Any failure striking the job's GPUs
// interrupts the job as a whole (training_job.hpp): the work since the last checkpoint is lost, then
// detection, recovery (spares, repairs, warm standbys) and the restart from the checkpoint. Warm standbys
// and a restart in parts are ways of restarting (operations and checkpoint keys: JobTiming), not strategies.
#include "models/workload/recovery/registry.hpp"

namespace dcsim::workload {

namespace {

class RestartStrategy final : public RecoveryStrategy {};

} // namespace

const StrategyEntry& restart_strategy_entry() {
  static const StrategyEntry entry{
      "restart", 0,
      "any failure interrupts the job (work since the last checkpoint is lost, then detection, recovery, "
      "restart)",
      {},
      [](const sim::Node&, const RecoveryContext&) { return std::shared_ptr<const StrategyParams>{}; },
      [](const RecoverySpec&, RecoveryHost&) -> std::unique_ptr<RecoveryStrategy> {
        return std::make_unique<RestartStrategy>();
      }};
  return entry;
}

} // namespace dcsim::workload
