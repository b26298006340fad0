#include "models/ledger/losses.hpp"

#include "models/ledger/cluster_ledger.hpp"
#include "models/workload/loss_cause.hpp"
#include "models/workload/training_job.hpp"

#include <map>
#include <stdexcept>
#include <utility>

namespace dcsim::ledger {

std::vector<LossCell> loss_cells(const workload::TrainingJob& job) {
  std::vector<LossCell> cells;
  for (int s = 0; s < workload::JOB_TIME_STATES; ++s)
    for (int c = 0; c < job.causes(); ++c)
      if (const auto t = job.cause_time(static_cast<workload::JobTime>(s), c); t != 0) cells.push_back({s, c, t});
  return cells;
}

namespace {

int mechanism_of(const ReplicaResult& r, int cause) {
  const int m = cause - static_cast<int>(r.modes.size());
  if (cause < 0 || m >= workload::MECHANISMS) throw std::logic_error("losses: no such cause");
  return m;
}

void add_rows(const ReplicaResult& r, const std::string& job, const std::vector<LossCell>& cells,
              std::vector<LossRow>& out) {
  workload::GpuTicks paid = 0;
  for (const auto& c : cells)
    paid += c.gpu_us;
  for (const auto& c : cells)
    out.push_back({job, loss_cause_name(r, c.cause), loss_cause_domain(r, c.cause),
                   std::string(workload::job_time_name(static_cast<workload::JobTime>(c.state))), c.gpu_us,
                   to_gpu_hours(c.gpu_us), static_cast<double>(c.gpu_us) / static_cast<double>(paid)});
}

} // namespace

const std::vector<LossColumn>& loss_columns() {
  static const std::vector<LossColumn> columns = {
      {"replica", "-", "replica index"},
      {"job", "-", "training job, or cluster (the jobs' rows summed per cause and state)"},
      {"cause", "-", "failure mode (scenario order, then thermal_shutdown) or mechanism (below) charged"},
      {"domain", "-", "the failure mode's failure domain (hardware, fabric, cooling, power, storage); empty for a mechanism"},
      {"state", "-", "ledger state the time was in (productive, checkpoint, rework, detection, ...)"},
      {"gpu_us", "GPU-us", "GPU-microseconds, an integer: per job and state the rows sum exactly to the state's ledger time"},
      {"gpu_h", "GPU-h", "gpu_us converted once (÷ 3.6e9)"},
      {"share_of_paid_frac", "fraction", "gpu_us over all the GPU-time the job held (the sum of its rows)"},
  };
  return columns;
}

const std::vector<const char*>& mechanism_meanings() {
  static const std::vector<const char*> meanings = {
      "steps whose progress was kept (not a loss: the waterfall's remainder)",
      "blocking checkpoint writes",
      "extra step time over the healthy step and fabric reroute stalls (stragglers, gray faults, thermal and "
      "power throttling, lost or shared fabric bandwidth: their factors multiply, so they share one cause)",
      "ft_dp replica groups out while the others trained on (the groups' failure modes are not split)",
      "planned stops and holds (maintenance, drains, grid events) and the waits, detections and restarts after them",
      "the first start of the job",
      "the scheduler released and placed the job again (preemption, elastic resize): work lost and restart",
  };
  static_assert(workload::MECHANISMS == 7, "a mechanism needs its meaning here");
  return meanings;
}

std::string loss_cause_name(const ReplicaResult& r, int cause) {
  if (cause >= 0 && cause < static_cast<int>(r.modes.size())) return r.modes[static_cast<std::size_t>(cause)].name;
  return std::string(workload::MECHANISM_NAMES[static_cast<std::size_t>(mechanism_of(r, cause))]);
}

std::string loss_cause_domain(const ReplicaResult& r, int cause) {
  if (cause >= 0 && cause < static_cast<int>(r.modes.size())) return r.modes[static_cast<std::size_t>(cause)].domain;
  mechanism_of(r, cause);
  return {};
}

std::vector<LossRow> loss_rows(const ReplicaResult& r) {
  std::vector<LossRow> out;
  std::map<std::pair<int, int>, workload::GpuTicks> cluster; // (state, cause): the order of the rows
  for (const auto& job : r.jobs) {
    add_rows(r, job.name, job.losses, out);
    for (const auto& c : job.losses)
      cluster[{c.state, c.cause}] += c.gpu_us;
  }
  std::vector<LossCell> cells;
  for (const auto& [key, t] : cluster)
    if (t != 0) cells.push_back({key.first, key.second, t});
  if (!cells.empty()) add_rows(r, "cluster", cells, out);
  return out;
}

} // namespace dcsim::ledger
