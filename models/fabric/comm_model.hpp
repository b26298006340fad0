// Collective communication time: the interface the step-time model asks, and an alpha-beta model of it.
//
// The step model (workload/step_model.hpp) describes each communication of a training step as a collective of a
// kind over a group of the job's GPUs, with a byte count, and asks a CommModel for its duration. Two
// implementations: AlphaBetaCommModel below (closed form, engine-free), and fabric::FabricCommModel
// (models/fabric/fabric_comm_model.hpp), which uses the same formulas with the scale-out bandwidth
// measured by playing the collective as SimGrid communications on the fabric (so that contention,
// placement and failed links shape it). A CommModel's answer may depend on state (healthy or degraded bandwidth per GPU,
// failed planes or links); `state_signature()` changes whenever that state changes, so callers can cache
// anything derived from the answers under it.
//
// Byte conventions (per rank, as in nccl-tests):
//   ALL_REDUCE      S = the buffer each rank holds (input = output size)
//   REDUCE_SCATTER  S = the input buffer of each rank (each keeps S / n)
//   ALL_GATHER      S = the output buffer of each rank (each contributes S / n)
//   ALL_TO_ALL      S = the bytes each rank sends in total (S / n to every rank, itself included)
//   SEND_RECV       S = the message, one hop between two ranks (group size 2)
//
// Group placement: a group has n = `ranks` members, `stride` job ranks apart (job ranks fill NVLink
// domains in order); `ranks_per_domain` k of them share each NVLink domain (k = n: all on NVLink; k = 1:
// every member in its own domain); `groups` identical groups run the same collective at the same time
// (for a fabric model: they contend; each GPU has its own NIC rail, so the alpha-beta model ignores it).
//
// AlphaBetaCommModel (Hockney's alpha-beta cost, ring algorithms as in NCCL; Thakur, Rabenseifner and
// Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005):
//   RS(n, S, B, α) = (n − 1)·α + (n − 1)/n · S / B           ring reduce-scatter (= ring all-gather)
//   with k members per domain and D = ceil(n / k) domains, hierarchically (intra-domain over NVLink, then
//   across domains over the k members' NICs in parallel, each carrying S / k):
//   ALL_REDUCE      2·RS(k, S, B_nvl, α_nvl) + 2·RS(D, S/k, B_net, α_net)
//   REDUCE_SCATTER  RS(k, S, B_nvl, α_nvl) + RS(D, S/k, B_net, α_net)          (ALL_GATHER the same)
//   ALL_TO_ALL      (n − 1)·α + max((k − 1)/n · S / B_nvl, (n − k)/n · S / B_net)
//                   (α = α_net when the group spans domains, else α_nvl)
//   SEND_RECV       α + S / B   (NVLink when both ranks share a domain, else the network)
//   B_nvl = nvlink_gbps / 2 (per direction) × nvlink_efficiency_frac × nvlink_bw_frac, in bytes/s
//   B_net = nic_gbps × nic_efficiency_frac × scale_out_bw_frac, in bytes/s
// (a failed plane of P leaves scale_out_bw_frac = (P − 1)/P of a GPU's scale-out bandwidth).
// Units: seconds, bytes, bytes per second.
#pragma once

#include "models/hardware/spec.hpp"

#include <cstdint>
#include <string_view>

namespace dcsim::fabric {

enum class Collective { ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL, SEND_RECV };
std::string_view collective_name(Collective kind);

/// Which parallel dimension a group belongs to (lets a fabric model map it onto the job's placement).
enum class GroupAxis { TP, CP, EP, DP, EXPERT_DP, PP };
std::string_view group_axis_name(GroupAxis axis);

struct CommGroup {
  GroupAxis axis = GroupAxis::TP;
  int ranks = 1;            ///< n: members of one group
  int stride = 1;           ///< job ranks between consecutive members
  int ranks_per_domain = 1; ///< k: members sharing one NVLink domain (1 ≤ k ≤ n)
  long long groups = 1;     ///< identical groups communicating at the same time
};

/// Members of a group sharing one NVLink domain when job ranks fill domains of `domain_gpus` in order.
int ranks_per_domain(int ranks, int stride, int domain_gpus);

/// RS(n, S, B, α): ring reduce-scatter (= all-gather) of S bytes per rank over n ranks, s (above).
double ring_rs_s(double n, double bytes, double bytes_per_s, double latency_s);

class CommModel {
public:
  virtual ~CommModel() = default;
  /// Duration of one collective, s (0 for a group of one rank).
  virtual double time_s(Collective kind, const CommGroup& group, double bytes) const = 0;
  /// Changes whenever anything time_s depends on changes.
  virtual std::uint64_t state_signature() const = 0;
};

class AlphaBetaCommModel final : public CommModel {
public:
  struct Params {
    double nvlink_bytes_per_s = 0;    ///< B_nvl: achievable per GPU and direction
    double nvlink_latency_s = 0;      ///< α_nvl
    double scale_out_bytes_per_s = 0; ///< B_net when healthy: achievable per GPU and direction
    double scale_out_latency_s = 0;   ///< α_net
  };
  explicit AlphaBetaCommModel(Params params) : params_(params) {}

  double time_s(Collective kind, const CommGroup& group, double bytes) const override;
  std::uint64_t state_signature() const override;

  /// Share of each GPU's healthy scale-out bandwidth left (e.g. 7/8 with one of 8 planes failed).
  void set_scale_out_bw_frac(double frac) { scale_out_bw_frac_ = frac; }
  double scale_out_bw_frac() const { return scale_out_bw_frac_; }
  /// Share of the NVLink domain's bandwidth left (a failed NVLink switch tray routed around).
  void set_nvlink_bw_frac(double frac) { nvlink_bw_frac_ = frac; }
  const Params& params() const { return params_; }
  double nvlink_bytes_per_s() const { return params_.nvlink_bytes_per_s * nvlink_bw_frac_; }
  double scale_out_bytes_per_s() const { return params_.scale_out_bytes_per_s * scale_out_bw_frac_; }

private:
  Params params_;
  double scale_out_bw_frac_ = 1.0;
  double nvlink_bw_frac_ = 1.0;
};

/// Alpha-beta parameters of a scenario's hardware: NVLink from hardware.rack.nvlink_gbps, the scale-out
/// network from `scale_out_gbps` (the fabric's ports x port_gbps x routing efficiency when the scenario
/// has a fabric) or else hardware.gpu.nic_gbps, achievable fractions and latencies from hardware.gpu.
AlphaBetaCommModel::Params alpha_beta_params(const hardware::HardwareSpec& hardware, double scale_out_gbps = 0);

} // namespace dcsim::fabric
