// The fabric as a Boost.Graph graph, and the sizing a planner asks for: counts of switches, links,
// cables and transceivers, bisection bandwidth by max-flow, diameter by breadth-first search, power.
//
// Graph: one vertex per GPU (a GPU joins all its planes, as its NIC does) and one per switch of every
// plane; one edge per connected pair, carrying the number of parallel links it bundles (a GPU's p ports
// to its leaf in one plane are one edge of p links; a leaf's links to one spine are one edge). Vertices
// are numbered GPUs first (vertex g = GPU g), then plane by plane: leaves, spines, cores. The structure
// (clos_plan.hpp has the sketch) is the ClosPlan's; this graph is its explicit form. 131,072 GPUs x 8
// planes of radix 512 make 131,072 + 8 x 768 vertices and ~2.1 M edges.
//
// Bisection bandwidth (sizing().bisection_gbps) is a max-flow computed on the graph, not a formula. The
// GPUs are split into two halves in leaf order (leaf 0, 1, ...; pods are runs of consecutive leaves),
// the worst balanced cut of a Clos, since it sends all of one half's traffic through the uplinks. The
// flow network is reduced without changing the max-flow value:
//   1. Planes are identical and share no switch, so the flow of plane 0 is computed once and multiplied
//      by P (a healthy fabric; FabricState handles planes that differ after failures).
//   2. A GPU has one edge to its leaf in a plane: the source's edges to the half-A GPUs of a leaf and
//      their p-port edges to the leaf are in series per GPU and in parallel across GPUs, so they
//      contract to one source->leaf edge of (half-A ports on that leaf) x port capacity (likewise
//      leaf->sink for half B). The reduced network is plane 0's switches plus source and sink.
//   3. Capacities are integers (links), so push-relabel is exact; Gb/s = links x port_gbps.
// Full bisection: bisection_gbps >= floor(N/2) x (GPU scale-out bandwidth).
//
// Diameter (diameter_hops): the most switches on a shortest path between two GPUs on different leaves of
// one plane (1 tier: 1; 2 tiers: 3; 3 tiers across pods: 5), by BFS over plane 0's switches from one
// leaf per class of leaves with the same upper neighbours (they have equal eccentricity).
//
// Cables and optics: one cable per link. GPU-leaf cables use gpu_link_media, switch-switch cables
// switch_link_media. An optical link needs a transceiver port at each end; a module carries
// ports_per_transceiver ports, counted per device (each switch and each GPU's NIC rounds up its own
// optical ports). Copper cables need none. Power: switches x switch_power_w + transceivers x
// transceiver_power_w (estimates, see spec.hpp).
#pragma once

#include "models/fabric/clos_plan.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dcsim::fabric {

class FabricState;

enum class NodeKind : std::uint8_t { GPU, LEAF, SPINE, CORE };
std::string_view node_kind_name(NodeKind kind);

struct ClosVertex {
  NodeKind kind = NodeKind::GPU;
  std::int16_t plane = -1; ///< -1 for GPUs
  std::int32_t index = 0;  ///< GPU index, or switch index within its tier and plane
};
struct ClosEdge {
  std::int32_t links = 1; ///< parallel links (ports) bundled in this edge
  std::int32_t id = 0;    ///< dense edge number, 0 .. num_edges - 1
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, ClosVertex, ClosEdge,
                                    boost::no_property, boost::vecS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

/// What `dcsim topology` prints. Counts are totals over all planes unless named per plane.
struct FabricSizing {
  int gpus = 0;
  int planes = 0;
  int tiers = 0;
  int nic_ports_per_gpu = 0;
  double port_gbps = 0;
  int radix = 0;
  int leaf_down_ports = 0;
  int leaf_up_ports = 0;
  int rail_groups = 0;
  int leaves_per_plane = 0;
  int spines_per_plane = 0;
  int cores_per_plane = 0;
  int pods_per_plane = 0;
  std::int64_t switches = 0;
  std::int64_t gpu_links = 0;
  std::int64_t switch_links = 0;
  std::int64_t links = 0;
  std::int64_t cables = 0;
  std::int64_t optical_links = 0;
  std::int64_t optics = 0; ///< transceiver modules
  std::int64_t max_gpus = 0;
  double bisection_gbps = 0;
  double full_bisection_gbps = 0; ///< floor(N/2) x GPU scale-out bandwidth
  bool full_bisection = false;
  int diameter_hops = 0;
  double switch_power_w = 0;
  double optics_power_w = 0;
  double fabric_power_w = 0;
};

class ClosGraph {
public:
  /// Builds the graph of a plan that is ok() (the plan is copied).
  explicit ClosGraph(const ClosPlan& plan);

  const ClosPlan& plan() const { return plan_; }
  const Graph& graph() const { return graph_; }
  Vertex gpu_vertex(int gpu) const { return static_cast<Vertex>(gpu); }
  Vertex switch_vertex(int plane, NodeKind kind, int index) const;
  std::string vertex_name(Vertex v) const; ///< "plane3/leaf0042", "rack0001/tray03/gpu2"

  /// Counts, bisection (max-flow) and diameter (BFS), computed on the graph.
  FabricSizing sizing() const;
  /// The counts and power of sizing() only (switches, links, cables, optics), without the max-flow and
  /// BFS: what the bill of materials (models/cost/bill.hpp) prices. sizing() starts from it.
  FabricSizing counts() const;
  /// Max-flow between the two leaf-ordered halves of the GPUs, Gb/s, all planes (reductions above).
  double bisection_gbps() const;
  int diameter_hops() const;

  /// Connected components of the graph without the failed switches, ports and links of `state`
  /// (Boost connected_components; failed switches are left out, every GPU counts). A GPU vertex joins
  /// its planes, so a GPU is in the main component while any plane still reaches it. Returns the
  /// number of components and fills `gpu_component` (per GPU).
  int components(const FabricState& state, std::vector<int>& gpu_component) const;

  /// A readable view for Graphviz (tools write it with boost::write_graphviz): the whole graph when it
  /// has at most `max_vertices` vertices; else plane 0 with each leaf's GPUs drawn as one node
  /// ("n GPUs") when that has at most `max_edges` edges; else one node per tier of plane 0. `title`
  /// says which reduction was made.
  struct DotNode {
    std::string name;
    std::string label;
    std::string shape;
  };
  struct DotEdge {
    std::string label;
  };
  using DotGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, DotNode, DotEdge>;
  struct DotView {
    std::string title;
    DotGraph graph;
  };
  DotView dot_view(std::size_t max_vertices = 300, std::size_t max_edges = 5000) const;

private:
  ClosPlan plan_;
  Graph graph_;
  int per_plane_ = 0; ///< switch vertices per plane
};

} // namespace dcsim::fabric
