// `dcsim compare --metric loss_share_frac:CAUSE=TOL`: gating a cause's share of paid GPU-time.
//
// For each job (and "cluster") of a run's losses.csv (tools/dcsim/outputs.hpp, models/ledger/losses.hpp)
// and each gated cause, per replica:
//     loss_share_frac:CAUSE = Σ over the job's rows of that cause of gpu_us ÷ Σ over all the job's rows of gpu_us
// (0 in a replica where the cause charged nothing), i.e. the cause's share of the GPU-time the job held,
// whatever the ledger state. These values join the comparison as one more metric per job, with the
// replicas' mean and 95% interval (sim::summarize, as summary.csv) and direction "lower is better": a rise
// beyond the gate's tolerance that the test finds significant is a regression (exit 5). Only gated causes
// are read, so a comparison without such a gate is unchanged.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dcsim::tools {

inline constexpr std::string_view LOSS_SHARE_PREFIX = "loss_share_frac:";

/// Whether `metric` names a cause's share ("loss_share_frac:CAUSE").
bool is_loss_share(std::string_view metric);

/// (job, "loss_share_frac:CAUSE") -> replica -> share, for each of `metrics` (loss-share names), from
/// `dir`/losses.csv. Throws std::runtime_error when the file is missing or malformed.
std::map<std::pair<std::string, std::string>, std::map<long, double>>
read_loss_shares(const std::filesystem::path& dir, const std::vector<std::string>& metrics);

} // namespace dcsim::tools
