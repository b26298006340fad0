// Cluster-level GPU-time accounting.
//
// Every GPU-microsecond of the cluster is in exactly one category at any time: held by a job (whose own
// ledger splits it into productive, checkpoint, rework ... ), or unallocated and then in repair (down),
// spare (healthy, in a job's domain or in the spare pool) or idle. The ledger keeps the count of GPUs
// per category and integrates count × time between changes, in integer GPU·µs, so that
//     Σ categories = GPUs × duration     exactly, and
//     allocated    = Σ over jobs of (job GPUs × job wall time)   exactly.
// Cost: O(1) per GPU whose category changes; nothing per time step.
#pragma once

#include "models/sched/allocator.hpp"
#include "sim/units.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace dcsim::ledger {

using GpuTicks = __int128; ///< GPU·µs: 131,072 GPUs x 10 years overflows 64 bits

inline constexpr int CATEGORIES = 4; // sched::Category values

class ClusterLedger {
public:
  ClusterLedger(int gpus, std::function<sched::Category(int)> category, sim::Tick start);

  /// Re-reads the category of `gpu` (call whenever it may have changed).
  void touch(int gpu, sim::Tick now);
  void finish(sim::Tick now);

  GpuTicks gpu_ticks(sched::Category c) const { return acc_[static_cast<std::size_t>(c)]; }
  int count(sched::Category c) const { return count_[static_cast<std::size_t>(c)]; }
  GpuTicks total() const;

private:
  std::function<sched::Category(int)> category_;
  std::vector<std::uint8_t> current_;
  std::array<int, CATEGORIES> count_{};
  std::array<GpuTicks, CATEGORIES> acc_{};
  sim::Tick last_;

  void advance(sim::Tick now);
};

/// GPU·µs to GPU-hours.
double to_gpu_hours(GpuTicks t);

} // namespace dcsim::ledger
