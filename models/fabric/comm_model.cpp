#include "models/fabric/comm_model.hpp"

#include "sim/units.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace dcsim::fabric {

std::string_view collective_name(Collective kind) {
  switch (kind) {
  case Collective::ALL_REDUCE: return "all_reduce";
  case Collective::REDUCE_SCATTER: return "reduce_scatter";
  case Collective::ALL_GATHER: return "all_gather";
  case Collective::ALL_TO_ALL: return "all_to_all";
  case Collective::SEND_RECV: return "send_recv";
  }
  return "?";
}

std::string_view group_axis_name(GroupAxis axis) {
  switch (axis) {
  case GroupAxis::TP: return "tp";
  case GroupAxis::CP: return "cp";
  case GroupAxis::EP: return "ep";
  case GroupAxis::DP: return "dp";
  case GroupAxis::EXPERT_DP: return "expert_dp";
  case GroupAxis::PP: return "pp";
  }
  return "?";
}

int ranks_per_domain(int ranks, int stride, int domain_gpus) {
  if (ranks <= 1) return 1;
  if (stride >= domain_gpus) return 1;
  return std::clamp(domain_gpus / std::max(1, stride), 1, ranks);
}

double ring_rs_s(double n, double bytes, double bytes_per_s, double latency_s) {
  if (n <= 1) return 0.0;
  return (n - 1) * latency_s + (n - 1) / n * bytes / bytes_per_s;
}

double AlphaBetaCommModel::time_s(Collective kind, const CommGroup& group, double bytes) const {
  const double n = group.ranks;
  if (group.ranks <= 1 || bytes <= 0) return 0.0;
  const double k = std::clamp(group.ranks_per_domain, 1, group.ranks);
  const double domains = std::ceil(n / k);
  const double b_nvl = params_.nvlink_bytes_per_s * nvlink_bw_frac_;
  const double b_net = scale_out_bytes_per_s();
  const double a_nvl = params_.nvlink_latency_s;
  const double a_net = params_.scale_out_latency_s;
  switch (kind) {
  case Collective::ALL_REDUCE:
    return 2 * ring_rs_s(k, bytes, b_nvl, a_nvl) + 2 * ring_rs_s(domains, bytes / k, b_net, a_net);
  case Collective::REDUCE_SCATTER:
  case Collective::ALL_GATHER:
    return ring_rs_s(k, bytes, b_nvl, a_nvl) + ring_rs_s(domains, bytes / k, b_net, a_net);
  case Collective::ALL_TO_ALL: {
    const double latency = (n - 1) * (domains > 1 ? a_net : a_nvl);
    const double nvl = (k - 1) / n * bytes / b_nvl;
    const double net = domains > 1 ? (n - k) / n * bytes / b_net : 0.0;
    return latency + std::max(nvl, net);
  }
  case Collective::SEND_RECV:
    return k >= 2 ? a_nvl + bytes / b_nvl : a_net + bytes / b_net;
  }
  return 0.0;
}

std::uint64_t AlphaBetaCommModel::state_signature() const {
  // FNV-1a-style mix of the bit patterns of everything time_s reads.
  std::uint64_t h = 1469598103934665603ULL;
  for (double v : {params_.nvlink_bytes_per_s, params_.nvlink_latency_s, params_.scale_out_bytes_per_s,
                   params_.scale_out_latency_s, scale_out_bw_frac_, nvlink_bw_frac_}) {
    h ^= std::bit_cast<std::uint64_t>(v);
    h *= 1099511628211ULL;
  }
  return h;
}

AlphaBetaCommModel::Params alpha_beta_params(const hardware::HardwareSpec& hardware, double scale_out_gbps) {
  constexpr double DIRECTIONS = 2.0; // nvlink_gbps sums both directions
  constexpr double S_PER_US = 1e-6;
  const hardware::GpuSpec& g = hardware.gpu;
  return AlphaBetaCommModel::Params{
      sim::gbps_to_bytes_per_s(hardware.rack.nvlink_gbps / DIRECTIONS) * g.nvlink_efficiency_frac,
      g.nvlink_latency_us * S_PER_US,
      sim::gbps_to_bytes_per_s(scale_out_gbps > 0 ? scale_out_gbps : g.nic_gbps) * g.nic_efficiency_frac,
      g.nic_latency_us * S_PER_US,
  };
}

} // namespace dcsim::fabric
