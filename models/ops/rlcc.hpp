// RLCC, the rack lifecycle controller: runs rack workflows as sequences of timed stages.
//
//   [drain] ─▶ [isolate] ─▶ service ─▶ [refill] ─▶ [burn-in] ─▶ return to service
//
//   drain     planned work only: the workload is stopped at a checkpoint and moved off the racks (the
//             composition does it through the `drain` hook and says when it is done); unplanned work (a
//             leak, a failed CDU) starts after the racks were already taken down
//   isolate   rlcc.isolate_s: valves close, the branch (or the loop) drains
//   service   the work itself; cooling repairs wait for one of `crews` technicians (0 = unlimited;
//             FIFO in the order workflows reach this stage)
//   refill    rlcc.refill_s: refill, purge air, leak test
//   burn-in   rlcc.burn_in_s: health checks
//   return    the workflow's `done` callback: the composition puts the racks back in service
// Each stage start is an event `rlcc_<stage>` (component and scope of the workflow, detail: its cause
// and the stage's length); the end is `return_to_service`. RLCC acts only through its hooks and
// callbacks: which racks go down, which jobs stop, what "back in service" means is the composition's.
#pragma once

#include "models/ops/rlcc_spec.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::ops {

enum class Stage { DRAIN, ISOLATE, SERVICE, REFILL, BURN_IN };
std::string_view stage_name(Stage stage);

class Rlcc {
public:
  struct Hooks {
    /// Planned drain of `racks`: stop their workload at a checkpoint, take them out of service, then call
    /// `drained` (at once if nothing runs there).
    std::function<void(const std::vector<int>& racks, bool coolant, std::function<void()> drained)> drain;
  };

  struct Workflow {
    std::string component;  ///< for events: "rack0003", "loop0001", "loop0001/pump2"
    std::string scope;      ///< for events: "rack", "loop", "pump"
    std::string cause;      ///< failure mode or wave name
    std::vector<int> racks; ///< drained racks (with `drain`)
    bool drain = false;
    bool coolant = false; ///< isolate and refill stages
    bool burn_in = false;
    sim::Tick service = 0;
    bool crew = false; ///< the service needs a technician
    std::function<void()> done;
  };

  Rlcc(const RlccSpec& spec, int crews, sim::EventQueue& queue, sim::EventLog& log, Hooks hooks);

  void start(Workflow workflow);
  int active() const { return static_cast<int>(flows_.size()); }
  int busy_crews() const { return busy_; }
  std::size_t queued() const { return waiting_.size(); }

private:
  struct Flow {
    Workflow w;
    std::vector<Stage> stages;
    std::size_t next = 0;
  };

  const RlccSpec* spec_;
  int crews_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Hooks hooks_;
  std::map<std::uint64_t, Flow> flows_;
  std::deque<std::uint64_t> waiting_; ///< flows waiting for a crew
  std::uint64_t next_id_ = 0;
  int busy_ = 0;

  void advance(std::uint64_t id);
  void begin(std::uint64_t id, Stage stage, sim::Tick duration);
  void serve(std::uint64_t id);
};

} // namespace dcsim::ops
