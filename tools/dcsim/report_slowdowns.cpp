#include "tools/dcsim/report_slowdowns.hpp"

#include "sim/compressed_file.hpp"
#include "sim/csv_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

namespace dcsim::tools {

namespace {

/// Nearest-rank percentile p (0..1) of sorted values.
double rank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n))) - 1;
  return sorted[std::min(k, sorted.size() - 1)];
}

} // namespace

std::string fabric_slowdown_section(const std::filesystem::path& dir) {
  std::string out = "<section id=\"fabric-slowdowns\"><h2>Fabric slowdowns</h2>\n"
                    "<p>Per replica, how much sharing the fabric (other jobs' collectives, converged storage "
                    "traffic) lengthened each training job's step: <code>fabric_slowdown_frac</code> = "
                    "step_shared_s / step_alone_s − 1 over its training time (replicas.csv; 0 for a job alone).</p>\n";
  const auto path = dir / "replicas.csv";
  sim::CsvDocument doc;
  try {
    if (!sim::any_variant(path)) throw std::runtime_error("no replicas.csv in this run's outputs");
    doc = sim::read_csv_file(path);
  } catch (const std::exception& e) {
    return out + "<p class=\"note\">" + e.what() + "</p></section>\n";
  }
  const auto col = doc.column("fabric_slowdown_frac"), replica = doc.column("replica"), job = doc.column("job");
  if (!col || !replica || !job)
    return out + "<p class=\"note\">replicas.csv has no fabric_slowdown_frac column (runs before it was written).</p></section>\n";
  std::map<long long, std::vector<double>> by_replica;
  for (const auto& row : doc.rows) {
    const double v = sim::csv_number(row[*col]);
    if (row[*job] != "cluster" && std::isfinite(v)) by_replica[std::llround(sim::csv_number(row[*replica]))].push_back(v);
  }
  if (by_replica.empty())
    return out + "<p class=\"note\">No job trained on a fabric in this run.</p></section>\n";
  out += "<table><thead><tr><th>replica</th><th>jobs</th><th>mean</th><th>min</th><th>median</th><th>p90</th>"
         "<th>max</th><th>jobs &gt; 1%</th></tr></thead><tbody>\n";
  for (auto& [r, v] : by_replica) {
    std::sort(v.begin(), v.end());
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    const auto slowed = std::count_if(v.begin(), v.end(), [](double x) { return x > 0.01; });
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.4f}%</td><td>{:.4f}%</td><td>{:.4f}%</td><td>{:.4f}%</td>"
                       "<td>{:.4f}%</td><td>{}</td></tr>\n",
                       r, v.size(), 100 * mean, 100 * v.front(), 100 * rank(v, 0.5), 100 * rank(v, 0.9),
                       100 * v.back(), slowed);
  }
  return out + "</tbody></table></section>\n";
}

} // namespace dcsim::tools
