#include "tools/dcsim/compare_losses.hpp"

#include "sim/csv.hpp"
#include "sim/csv_reader.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace dcsim::tools {

bool is_loss_share(std::string_view metric) {
  return metric.size() > LOSS_SHARE_PREFIX.size() && metric.substr(0, LOSS_SHARE_PREFIX.size()) == LOSS_SHARE_PREFIX;
}

std::map<std::pair<std::string, std::string>, std::map<long, double>>
read_loss_shares(const std::filesystem::path& dir, const std::vector<std::string>& metrics) {
  const auto path = dir / "losses.csv";
  const std::string label = path.string();
  const auto doc = sim::read_csv_file(path);
  const auto replica = doc.require_column("replica", label), job = doc.require_column("job", label),
             cause = doc.require_column("cause", label), gpu_us = doc.require_column("gpu_us", label);
  auto number = [&label](const std::string& text) {
    try {
      return sim::csv_number(text);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", label, e.what()));
    }
  };
  // (job, replica) -> paid GPU·µs, and (job, replica, cause) -> its GPU·µs.
  std::map<std::pair<std::string, long>, double> paid;
  std::map<std::pair<std::pair<std::string, long>, std::string>, double> by_cause;
  for (const auto& row : doc.rows) {
    const std::pair<std::string, long> key{row[job], static_cast<long>(number(row[replica]))};
    const double t = number(row[gpu_us]);
    paid[key] += t;
    by_cause[{key, row[cause]}] += t;
  }
  std::map<std::pair<std::string, std::string>, std::map<long, double>> out;
  for (const auto& metric : metrics) {
    const std::string name = metric.substr(LOSS_SHARE_PREFIX.size());
    bool seen = false;
    for (const auto& [key, total] : by_cause)
      seen = seen || key.second == name;
    if (!seen) continue; // not in this run: the comparison says whether in the other
    for (const auto& [key, total] : paid) {
      const auto it = by_cause.find({key, name});
      out[{key.first, metric}][key.second] = total > 0 && it != by_cause.end() ? it->second / total : 0.0;
    }
  }
  return out;
}

} // namespace dcsim::tools
