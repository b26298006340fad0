// Simulated time and unit conversions.
//
// dcsim keeps every model-level date and duration as an integer number of microseconds (`Tick`), so
// that ledgers built from differences of dates telescope exactly: the states of a job always sum to its
// wall time, to the microsecond, whatever the number of events. SimGrid's clock is a double in seconds;
// `to_seconds`/`to_ticks` convert at the boundary. 2^63 µs is 292,000 years, far beyond any scenario.
#pragma once

#include <cmath>
#include <cstdint>

namespace dcsim::sim {

using Tick = std::int64_t; ///< simulated time in microseconds

inline constexpr Tick TICKS_PER_S = 1'000'000;
inline constexpr double S_PER_MIN = 60.0;
inline constexpr double S_PER_H = 3600.0;
inline constexpr double S_PER_DAY = 86400.0;
inline constexpr double H_PER_DAY = 24.0;

/// Seconds to ticks, rounded to the nearest microsecond.
inline Tick to_ticks(double duration_s) { return std::llround(duration_s * static_cast<double>(TICKS_PER_S)); }
inline Tick hours_to_ticks(double duration_h) { return to_ticks(duration_h * S_PER_H); }
inline double to_seconds(Tick t) { return static_cast<double>(t) / static_cast<double>(TICKS_PER_S); }
inline double to_hours(Tick t) { return to_seconds(t) / S_PER_H; }

/// Gb/s (10^9 bits per second, the unit of network keys) to bytes per second (SimGrid's unit).
inline double gbps_to_bytes_per_s(double bw_gbps) { return bw_gbps * 1e9 / 8.0; }

} // namespace dcsim::sim
