// The fabric in the SimGrid platform, built from the ClosGraph, and its failures.
//
// The platform holds what the fabric's flows need and nothing more: one host per GPU (host index = GPU
// index; an endpoint, it computes nothing) and the links below. NVLink is not in it (a domain's switch
// is non-blocking and priced analytically: no probe flow stays inside a domain), nor are GPU failures
// (probes ask about the network). A scenario without a fabric builds no platform.
//
// Aggregated planes (docs/architecture.md, SimGrid). A logical transfer between GPUs of different NVLink domains
// is striped evenly over the P planes; P identical planes carrying equal shares are, for SimGrid's
// max-min sharing, exactly one plane whose every link has the P planes' summed capacity (measured
// equal to 1e-6 in the notes). dcsim therefore builds one aggregated plane: no NIC pseudo-hosts (which
// cost 40 s at 131k GPUs x 8 planes), GPU-to-GPU routes, and one link per potential bottleneck:
//
//   GPU a ──access(a)──┐                               ┌──access(b)── GPU b      same leaf: [access(a) up,
//                      leaf(a) ══up══▶ spines ══down══▶ leaf(b)                              access(b) down]
//   access(g):  g's live NIC ports over all planes x port_gbps            (one duplex link per GPU)
//   leaf bundle l: live uplinks of leaf l over all planes x port_gbps x routing_efficiency_frac
//   pod bundle c (3 tiers): live spine uplinks of pod c over all planes x port_gbps x efficiency
//   route a -> b, different leaves:  [access(a) up, (bundle(leaf a) up), (bundle(pod a) up),
//                                     (bundle(pod b) down), (bundle(leaf b) down), access(b) down]
// Spine and core switches are non-blocking crossbars and, with ideal ECMP spreading (docs/architecture.md, SimGrid:
// "ideal ECMP (uplink bundle)"), their links are covered by the leaf and pod bundles, so they carry no
// SimGrid link. A bundle enters routes only while it can saturate (docs/architecture.md, SimGrid: links that can
// never saturate still couple flows): when its capacity is below the access capacity of the GPUs below
// it (oversubscription, routing efficiency < 1, or failed uplinks). Routes are computed when a
// communication starts; one in flight keeps its route when a failure changes which bundles can saturate.
// Latency is added per route, not per link: links x link_latency_us + switches x switch_latency_ns
// (same leaf: 2 links, 1 switch; two tiers: 4, 3; three tiers across pods: 6, 5).
//
// Failures change capacities: a NIC port, a cable, a leaf, a spine, a core or a switch link of one plane
// removes that plane's share from the aggregated links (set_bandwidth); a link with no capacity left is
// turned off, and flows using it fail (they get no rate). Aggregation assumes
// the NICs spray over the surviving planes (Spectrum-X/ConnectX multi-plane); what it cannot show is a
// per-plane hot spot, which would need one NIC host per GPU and plane (not built: too costly at scale).
//
// Using it (the composition root, e.g. models/world.cpp):
//   ClosGraph graph(ClosPlan(*scenario.fabric, layout));             // once per process
//   FabricPlatform fabric(graph, scenario.name);                     // creates the process's engine
//   a failure of mode scope nic_port|link|leaf|spine|core: pick unit u in [0, fabric.state().unit_count(k)),
//     Element e = fabric.state().element(k, u); fabric.fail(e) ... fabric.restore(e) at repair;
//   after each change: for g in fabric.state().affected(e).gpus (or a job's GPUs), fabric.state().bw_frac(g)
//     (remaining share) and cut_off(g) (interrupts the job); spec().reroute_s is the stall of a reroute.
#pragma once

#include "models/fabric/clos_graph.hpp"
#include "models/fabric/fabric_state.hpp"
#include "sim/platform.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dcsim::fabric {

class FabricPlatform {
public:
  /// Creates the process's SimGrid platform (named `name`): one host per GPU, one access link per GPU,
  /// the leaf (and pod) bundles, and the router; then seals it. The graph must outlive this object.
  /// `before_seal` may add other sections to the platform (hosts after the GPUs', their own router).
  FabricPlatform(const ClosGraph& graph, const std::string& name,
                 const std::function<void(sim::Platform&)>& before_seal = {});
  ~FabricPlatform();

  const ClosGraph& graph() const { return *graph_; }
  const FabricState& state() const { return state_; }

  /// Appends the fabric route between GPUs of different NVLink domains (platform link indices) and adds
  /// its latency; returns false when both are in one domain (NVLink's job) or are the same GPU.
  bool route(int gpu_a, int gpu_b, std::vector<int>& links, double& latency_s) const;

  /// The SimGrid platform (hosts are GPU indices): to play flows on, in a child process.
  sim::Platform& platform() const { return *platform_; }

  /// Fails / restores one element (fabric_state.hpp) and updates the SimGrid links; same return as
  /// FabricState. Call from the simulation (a timer or an actor), after the platform is sealed.
  bool fail(const Element& e);
  bool restore(const Element& e);

  double bw_frac(int gpu) const { return state_.bw_frac(gpu); }
  /// The longest route's latency (links and switches), s.
  double max_route_latency_s() const {
    return std::max({latency_same_leaf_s_, latency_two_tier_s_, latency_cross_pod_s_});
  }
  bool cut_off(int gpu) const { return state_.cut_off(gpu); }

  // For tests and the benchmark.
  int access_link(int gpu) const { return access_[static_cast<std::size_t>(gpu)].up; }
  sim::Platform::DuplexLink access_duplex(int gpu) const { return access_[static_cast<std::size_t>(gpu)]; }
  int leaf_bundle(int leaf) const { return leaf_bundle_.empty() ? -1 : leaf_bundle_[static_cast<std::size_t>(leaf)].up; }
  /// Both halves of leaf `leaf`'s bundle (no bundle with a single leaf: {-1, -1}).
  sim::Platform::DuplexLink leaf_bundle_duplex(int leaf) const {
    return leaf_bundle_.empty() ? sim::Platform::DuplexLink{-1, -1} : leaf_bundle_[static_cast<std::size_t>(leaf)];
  }
  sim::Platform::DuplexLink pod_bundle_duplex(int pod) const {
    return pod_bundle_.empty() ? sim::Platform::DuplexLink{-1, -1} : pod_bundle_[static_cast<std::size_t>(pod)];
  }
  bool leaf_bundle_in_routes(int leaf) const { return !leaf_route_.empty() && leaf_route_[static_cast<std::size_t>(leaf)]; }
  bool pod_bundle_in_routes(int pod) const { return !pod_route_.empty() && pod_route_[static_cast<std::size_t>(pod)]; }
  int links_created() const { return links_created_; }

private:
  const ClosGraph* graph_;
  const ClosPlan* plan_;
  std::unique_ptr<sim::Platform> platform_;
  FabricState state_;
  double port_bytes_per_s_ = 0;
  double efficiency_ = 1;
  double latency_same_leaf_s_ = 0, latency_two_tier_s_ = 0, latency_cross_pod_s_ = 0;
  std::vector<int> leaf_of_;                          ///< per GPU
  std::vector<sim::Platform::DuplexLink> access_;     ///< per GPU
  std::vector<sim::Platform::DuplexLink> leaf_bundle_; ///< per leaf (empty with a single leaf)
  std::vector<sim::Platform::DuplexLink> pod_bundle_;  ///< per pod (3 tiers with several pods)
  std::vector<char> leaf_route_, pod_route_;           ///< bundle may saturate: in routes
  int links_created_ = 0;

  void sync(const Affected& a);
  void sync_gpu(int gpu);
  void sync_leaf(int leaf);
  void sync_pod(int pod);
  void set_capacity(const sim::Platform::DuplexLink& link, double bytes_per_s);
  void add_links(const std::vector<std::int64_t>& leaf_up, const std::vector<std::int64_t>& pod_up);
};

} // namespace dcsim::fabric
