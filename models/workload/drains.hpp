// Drains for planned work (Mission Control's drain stage, RLCC workflows): a unit's GPUs are emptied of
// training without losing work.
//
// drain(gpus, done): the GPUs leave placement at once (Site::set_draining true). Each training job
// holding some is asked to stop at its next checkpoint (TrainingJob::request_stop: no work lost; a job
// not running stops at once); a service holding some just moves off them (its recount, at the end).
// When the last holder has stopped, `done` takes the GPUs (they are then down for the work, no longer
// drained: set_draining false), and the services recount (Site::drained). With no training holder this
// happens on a zero-delay event, so `done` never runs inside drain().
#pragma once

#include "models/hardware/layout.hpp"
#include "models/workload/training_job.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <vector>

namespace dcsim::workload {

class Drains {
public:
  /// What a drain asks of the replica.
  class Site {
  public:
    virtual ~Site() = default;
    /// The GPUs can (false) or cannot (true) be placed on.
    virtual void set_draining(hardware::GpuRange gpus, bool draining) = 0;
    /// The training jobs holding some of the GPUs, each once.
    virtual std::vector<TrainingJob*> training_holders(hardware::GpuRange gpus) const = 0;
    /// A drain ended (after `done`): services holding drained GPUs recount.
    virtual void drained() = 0;
  };

  Drains(Site& site, sim::EventQueue& queue) : site_(&site), queue_(&queue) {}
  void drain(hardware::GpuRange gpus, std::function<void()> done);

private:
  Site* site_;
  sim::EventQueue* queue_;
};

} // namespace dcsim::workload
