// The run report's #loss-waterfall section (report.hpp lists every section): per job and the cluster, from
// the GPU-hours the job held ("paid", 100%) down to its productive ones, one step per (cause, ledger state)
// of losses.csv (models/ledger/losses.hpp), summed over replicas (so each step is its share of the paid
// GPU-time of all replicas together, the mean over replicas weighted by what each held). Steps are in
// decreasing size; beyond the 14 largest they are merged into one "other causes" step, so that the steps
// and the productive bar still add up to 100%. A run without losses.csv gets a note.
#pragma once

#include <filesystem>
#include <string>

namespace dcsim::tools {

std::string loss_waterfall_section(const std::filesystem::path& dir);

} // namespace dcsim::tools
