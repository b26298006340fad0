// Simulated time and unit conversions.
//
// dcsim keeps every model-level date and duration as an integer number of microseconds (`Tick`), so
// that ledgers built from differences of dates telescope exactly: the states of a job always sum to its
// wall time, to the microsecond, whatever the number of events. SimGrid's clock is a double in seconds;
// `to_seconds`/`to_ticks` convert at the boundary. 2^63 µs is 292,000 years, far beyond any scenario.
//
// Limits. A scenario's durations are at most MAX_DURATION_H (10^6 h, 114 years: the key tables bound every
// key in h, s, us and ns by it), so a date plus thousands of such durations still fits a Tick. Durations
// drawn at random (exponential or log-normal repair times, times to failure of a long MTBF) can still be
// huge: `to_ticks` saturates at MAX_TICKS (2^62 µs, 146,000 years) instead of overflowing, and a date that
// far is simply never reached.
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

/// The longest duration a scenario key may give, and the simulated time of a replica at most.
inline constexpr double MAX_DURATION_H = 1e6;
inline constexpr double MAX_DURATION_S = MAX_DURATION_H * S_PER_H;
/// Durations are clamped to [-MAX_TICKS, MAX_TICKS]: a sum of two never overflows.
inline constexpr Tick MAX_TICKS = Tick{1} << 62;

/// Seconds to ticks, rounded to the nearest microsecond; saturates at +-MAX_TICKS (NaN: MAX_TICKS).
inline Tick to_ticks(double duration_s) {
  const double us = duration_s * static_cast<double>(TICKS_PER_S);
  constexpr double LIMIT = static_cast<double>(MAX_TICKS);
  if (!(us < LIMIT)) return MAX_TICKS;
  if (us <= -LIMIT) return -MAX_TICKS;
  return std::llround(us);
}
inline Tick hours_to_ticks(double duration_h) { return to_ticks(duration_h * S_PER_H); }
inline double to_seconds(Tick t) { return static_cast<double>(t) / static_cast<double>(TICKS_PER_S); }
inline double to_hours(Tick t) { return to_seconds(t) / S_PER_H; }

/// Gb/s (10^9 bits per second, the unit of network keys) to bytes per second (SimGrid's unit).
inline double gbps_to_bytes_per_s(double bw_gbps) { return bw_gbps * 1e9 / 8.0; }

} // namespace dcsim::sim
