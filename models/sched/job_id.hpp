// A job's identifier across the scheduler's interface (Scheduler::add returns it; the allocator and the
// replica index their jobs by it): a strong type, so a job cannot be passed where a GPU or a count is
// expected (sim/strong_id.hpp). Its value is the job's index in the scenario's job list.
#pragma once

#include "sim/strong_id.hpp"

namespace dcsim::sched {

using JobId = sim::StrongId<struct JobIdTag>;

} // namespace dcsim::sched
