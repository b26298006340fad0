// The index of a GPU in the cluster (hardware/layout.hpp numbers them 0 … G − 1, rack by rack), as a
// strong type: the parts that hand GPUs to one another (the allocator, the failure domains) say GpuIndex
// where a bare int could be mistaken for a job, a rank or a count (sim/strong_id.hpp).
#pragma once

#include "sim/strong_id.hpp"

namespace dcsim::hardware {

using GpuIndex = sim::StrongId<struct GpuIndexTag>;

} // namespace dcsim::hardware
