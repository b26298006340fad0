// The run report's sections drawn from events.csv (report.hpp lists every section):
//   #interruption-cdf  the empirical CDF of the time between a job's successive interruptions, pooled
//                      over replicas (one curve per job): F(t) = share of gaps <= t
//   #job-timeline      replica 0: one row per job, coloured spans of its states over time, from its
//                      events (restart: restarting; running: running; interruption: down, until the
//                      job restarts; waiting: waiting for GPUs; drained or planned_stop: stopped;
//                      completed or released: the row ends; before its first event: not started)
#pragma once

#include "sim/csv_reader.hpp"

#include <string>

namespace dcsim::tools {

/// Both sections; `events` null: their notes (`note` says why). `duration_h`: the run's length, where
/// the timeline's rows end (NaN: the last event).
std::string event_sections(const sim::CsvDocument* events, const std::string& note, double duration_h);

} // namespace dcsim::tools
