// A workload of a replica: a training job (training_job.hpp) or an inference service
// (inference_service.hpp), behind one interface, and the one container that holds a replica's workloads.
//
// Both kinds hold GPUs through the allocator under the same index (the job's position in the scenario),
// lose GPUs to failures, get capacity back from repairs and close their accounts at the run's end; what
// each does then is its own (a training job is interrupted and restarts from its checkpoint; a service
// serves on fewer GPUs until they are replaced). What differs by kind on purpose stays explicit: only a
// training job stops at a checkpoint for a planned drain or a grid event, only a service borrows domains
// (see `training()` / `service()`).
#pragma once

#include "models/workload/spec.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace dcsim::workload {

/// GPU·µs: 131,072 GPUs x 10 years overflows 64 bits.
using GpuTicks = __int128;

class TrainingJob;
class InferenceService;

class Workload {
public:
  virtual ~Workload() = default;
  virtual const JobSpec& spec() const = 0;
  /// Failure `id` of mode `mode` struck (or cut off) GPUs the workload holds.
  virtual void on_failure(std::uint64_t id, int mode) = 0;
  /// Failure `id` has been detected by Mission Control.
  virtual void on_failure_detected(std::uint64_t id) = 0;
  /// Capacity came back (a repair, a return to service, a job done).
  virtual void on_capacity_changed() = 0;
  /// Closes the accounts at the end of the run.
  virtual void finish() = 0;
  /// GPU·µs the workload held over the run, all its ledger states together (valid after finish()).
  virtual GpuTicks held_gpu_time() const = 0;
};

/// A replica's workloads, indexed as in the scenario (and the allocator).
class Workloads {
public:
  void add(std::unique_ptr<TrainingJob> job);
  void add(std::unique_ptr<InferenceService> service);

  int size() const { return static_cast<int>(all_.size()); }
  Workload& operator[](int j) const { return *all_[static_cast<std::size_t>(j)]; }
  /// The training job at `j`; nullptr when it is a service.
  TrainingJob* training(int j) const { return training_at_[static_cast<std::size_t>(j)]; }
  /// The inference service at `j`; nullptr when it is a training job.
  InferenceService* service(int j) const { return service_at_[static_cast<std::size_t>(j)]; }
  /// Every training job / service, in scenario order.
  const std::vector<TrainingJob*>& trainings() const { return trainings_; }
  const std::vector<InferenceService*>& services() const { return services_; }

private:
  std::vector<std::unique_ptr<Workload>> all_;
  std::vector<TrainingJob*> training_at_, trainings_;
  std::vector<InferenceService*> service_at_, services_;
};

} // namespace dcsim::workload
