#include "sim/event_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

namespace dcsim::sim {

void append_fixed3(std::string& out, double value) {
  // Below 10^6, value x 1000 < 10^9 carries an absolute error under 2^-53 x 10^9 ~ 1.1e-7: its rounding
  // to an integer is the exact value's unless its fraction is within 10^-6 of one half.
  if (value >= 0 && value < 1e6 && !std::signbit(value)) {
    const double scaled = value * 1000.0;
    const double whole = std::floor(scaled);
    const double frac = scaled - whole; // exact below 2^52
    if (std::abs(frac - 0.5) > 1e-6) {
      const auto milli = static_cast<std::uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
      char digits[24];
      char* end = digits + sizeof digits;
      char* p = end;
      std::uint64_t units = milli / 1000;
      const auto thousandths = static_cast<unsigned>(milli % 1000);
      *--p = static_cast<char>('0' + thousandths % 10);
      *--p = static_cast<char>('0' + thousandths / 10 % 10);
      *--p = static_cast<char>('0' + thousandths / 100);
      *--p = '.';
      do {
        *--p = static_cast<char>('0' + units % 10);
        units /= 10;
      } while (units > 0);
      out.append(p, end);
      return;
    }
  }
  fmt::format_to(std::back_inserter(out), "{:.3f}", value);
}

std::vector<EventRecord> EventLog::take_in_time_order() {
  std::deque<EventRecord> records = std::exchange(records_, {});
  const std::size_t n = records.size();
  // Late records: those dated before the latest record kept in order ahead of them. Taken out first
  // (with their place in the log, the tie-break of a stable sort), then sorted among themselves.
  std::vector<std::pair<Tick, std::size_t>> late_keys;
  {
    Tick latest = 0;
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Tick t = records[i].time;
      if (any && t < latest) {
        late_keys.emplace_back(t, i);
      } else {
        latest = t;
        any = true;
      }
    }
  }
  std::vector<EventRecord> late;
  late.reserve(late_keys.size());
  for (const auto& [t, i] : late_keys)
    late.push_back(std::move(records[i])); // late_keys is in log order here
  std::vector<std::size_t> late_order(late_keys.size());
  for (std::size_t r = 0; r < late_order.size(); ++r)
    late_order[r] = r;
  std::sort(late_order.begin(), late_order.end(),
            [&](std::size_t a, std::size_t b) { return late_keys[a] < late_keys[b]; });

  // Merge: the in-order records stream out of the front of the log (each block freed once read), the
  // late ones are slotted in before the first in-order record whose (date, place) is greater.
  std::vector<EventRecord> out;
  out.reserve(n);
  std::size_t next_late = 0;  // into late_order
  std::size_t skip = 0;       // into late_keys (log order): the next late record's place in the log
  for (std::size_t i = 0; i < n; ++i, records.pop_front()) {
    if (skip < late_keys.size() && late_keys[skip].second == i) {
      ++skip; // moved out above
      continue;
    }
    EventRecord& record = records.front();
    while (next_late < late_order.size() && late_keys[late_order[next_late]] < std::pair{record.time, i})
      out.push_back(std::move(late[late_order[next_late++]]));
    out.push_back(std::move(record));
  }
  while (next_late < late_order.size())
    out.push_back(std::move(late[late_order[next_late++]]));
  return out;
}

} // namespace dcsim::sim
