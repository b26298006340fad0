// `dcsim report OUT_DIR`: one self-contained report.html from a run's output files.
//
// Sections (each an element with a fixed id, for people and for the browser test):
//   #summary        every metric of summary.csv, mean and 95% CI, one column per job and the cluster
//   #waterfall      per job and cluster: 100% of GPU-time down to productive, one step per ledger state
//                   (ledger.csv, mean over replicas; states are taken from the file, none are assumed)
//   #interruptions  interruptions and failures by cause, MTTR by cause (causes.csv)
//   #timeseries     every gauge of timeseries.csv over time: mean over replicas, min–max band
//   #rack-grid      one cell per rack coloured by availability, grouped by cooling loop: from racks.csv
//                   when present (columns rack, availability_frac, optional replica and loop), else
//                   derived from events.csv failures and repairs and the run's scenario.json
//   #cooling-power  gauges about temperature, coolant, flow, valves or power, when present
// A missing or unreadable file (other than summary.csv, which is required) leaves its section with a
// note rather than failing. The page holds only HTML, CSS and inline SVG: no scripts, no fonts, no
// network; the same inputs give the same bytes.
#pragma once

#include <filesystem>
#include <string>

namespace dcsim::tools {

/// The report's HTML. Throws std::runtime_error when summary.csv is missing or malformed.
std::string report_html(const std::filesystem::path& out_dir);

/// `dcsim report`: writes OUT_DIR/report.html (or `output`); returns the exit code (2 when OUT_DIR is not
/// a complete run's outputs: tools/dcsim/completion.hpp).
int report_command(const std::string& out_dir, const std::string& output);

} // namespace dcsim::tools
