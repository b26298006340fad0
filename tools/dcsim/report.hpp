// `dcsim report OUT_DIR`: one self-contained report.html from a run's output files.
//
// Sections (each an element with a fixed id, for people and for the browser test):
//   #summary        every metric of summary.csv, mean and 95% CI, one column per job and the cluster
//   #waterfall      per job and cluster: 100% of GPU-time down to productive, one step per ledger state
//                   (ledger.csv, mean over replicas; states are taken from the file, none are assumed)
//   #loss-waterfall per job and cluster: paid GPU-hours down to productive, one step per cause and state
//                   (losses.csv; report_losses.hpp)
//   #interruptions  interruptions and failures by cause, MTTR by cause (causes.csv)
//   #fabric-slowdowns per replica, the distribution of the jobs' fabric_slowdown_frac (replicas.csv;
//                   report_slowdowns.hpp)
//   #interruption-cdf, #job-timeline   from events.csv (report_events.hpp): the CDF of the time between
//                   a job's interruptions; replica 0's job states over time
//   #timeseries     every gauge of timeseries.csv that changes over time: mean over replicas, min–max
//                   band; the cluster's total (entity "cluster") in its own chart, its parts (loops,
//                   racks) in another (`gauge-NAME-parts`), aggregated when more than 6 (max for a gauge
//                   named *max*, else mean); gauges constant over the run in a table (#constant-gauges)
//   #rack-grid      one cell per rack coloured by availability, grouped by cooling loop: from racks.csv
//                   when present (columns rack, availability_frac, optional replica and loop), else
//                   derived from events.csv failures and repairs and the run's scenario.json
//   #cooling-power  gauges about temperature, coolant, flow, valves or power, when present, drawn the same
//                   way (constant ones in #constant-cooling-gauges)
// A missing or unreadable file (other than summary.csv, which is required) leaves its section with a
// note rather than failing. The page holds only HTML, CSS and inline SVG: no scripts, no fonts, no
// network; the same inputs give the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dcsim::tools {

/// The report's HTML. Throws std::runtime_error when summary.csv is missing or malformed.
std::string report_html(const std::filesystem::path& out_dir);

/// `dcsim report`: writes OUT_DIR/report.html (or `output`); returns the exit code (2 when OUT_DIR is not
/// a complete run's outputs: tools/dcsim/completion.hpp). A sweep's folder (sweep.csv) gets the sweep
/// report (sweep_report.hpp) of `metrics` (empty: goodput_frac) and the Pareto fronts `pareto` ("X,Y"
/// pairs; empty: the default fronts); a run's report ignores `metrics` and refuses `pareto` (exit 2).
int report_command(const std::string& out_dir, const std::string& output,
                   const std::vector<std::string>& metrics = {}, const std::vector<std::string>& pareto = {});

// Shared by the run, sweep and compare pages.
std::string report_css();                         ///< the pages' stylesheet
std::string report_number(double v);              ///< a value for a table cell: 0.9512, 21.3k as 21345.0, –
std::string report_html_id(std::string_view text); ///< letters and digits kept, anything else '-'

} // namespace dcsim::tools
