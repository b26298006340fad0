#include "models/fabric/clos_graph.hpp"

#include "models/fabric/fabric_state.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace dcsim::fabric {

std::string_view node_kind_name(NodeKind kind) {
  switch (kind) {
  case NodeKind::GPU: return "gpu";
  case NodeKind::LEAF: return "leaf";
  case NodeKind::SPINE: return "spine";
  case NodeKind::CORE: return "core";
  }
  return "?";
}

namespace {

std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

/// Adds one edge per target with the number of links that go there (targets given link by link).
template <class Targets>
void add_bundles(Graph& g, Vertex from, int links, Targets target_of, Vertex target_base, std::vector<int>& count,
                 std::vector<int>& touched, std::int32_t& next_id) {
  touched.clear();
  for (int j = 0; j < links; ++j) {
    const int t = target_of(j);
    if (count[at(t)]++ == 0) touched.push_back(t);
  }
  std::sort(touched.begin(), touched.end());
  for (int t : touched) {
    boost::add_edge(from, target_base + static_cast<Vertex>(t), ClosEdge{count[at(t)], next_id++}, g);
    count[at(t)] = 0;
  }
}

} // namespace

ClosGraph::ClosGraph(const ClosPlan& plan) : plan_(plan) {
  if (!plan_.ok()) throw std::logic_error("ClosGraph: the plan is not a valid design");
  const int N = plan_.gpus(), P = plan_.planes(), L = plan_.leaves(), S = plan_.spines(), C = plan_.cores();
  const int p = plan_.ports_per_plane(), u = plan_.leaf_up_ports();
  per_plane_ = L + S + C;
  graph_ = Graph(at(N + static_cast<std::int64_t>(P) * per_plane_));
  for (int g = 0; g < N; ++g)
    graph_[gpu_vertex(g)] = ClosVertex{NodeKind::GPU, -1, g};
  for (int q = 0; q < P; ++q) {
    for (int l = 0; l < L; ++l)
      graph_[switch_vertex(q, NodeKind::LEAF, l)] = ClosVertex{NodeKind::LEAF, static_cast<std::int16_t>(q), l};
    for (int s = 0; s < S; ++s)
      graph_[switch_vertex(q, NodeKind::SPINE, s)] = ClosVertex{NodeKind::SPINE, static_cast<std::int16_t>(q), s};
    for (int c = 0; c < C; ++c)
      graph_[switch_vertex(q, NodeKind::CORE, c)] = ClosVertex{NodeKind::CORE, static_cast<std::int16_t>(q), c};
  }
  // Reserve the edge list and every out-edge list (public members of Boost's adjacency_list
  // implementation): growing ~2 M edges by doubling costs more than building them at 131k GPUs x 8 planes.
  const std::int64_t edges = static_cast<std::int64_t>(N) * P + static_cast<std::int64_t>(P) * L * std::min(u, std::max(S, 1)) +
                             (plan_.tiers() == 3 ? static_cast<std::int64_t>(P) * S * std::min(plan_.leaves_per_pod(), std::max(C, 1)) : 0);
  graph_.m_edges.reserve(at(edges));
  for (int g = 0; g < N; ++g)
    graph_.out_edge_list(gpu_vertex(g)).reserve(at(P));
  for (int q = 0; q < P; ++q) {
    for (int l = 0; l < L; ++l)
      graph_.out_edge_list(switch_vertex(q, NodeKind::LEAF, l)).reserve(at(plan_.leaf_gpu_count(l) + std::min(u, S)));
    for (int s = 0; s < S; ++s)
      graph_.out_edge_list(switch_vertex(q, NodeKind::SPINE, s))
          .reserve(at(plan_.tiers() == 3 ? plan_.pod_leaves(plan_.pod_of_spine(s)) + std::min(plan_.spine_uplinks(s), C)
                                         : L));
  }
  std::int32_t id = 0;
  // GPU cables: GPU by GPU so that each GPU's edges are adjacent, plane by plane.
  std::vector<int> leaf_of(at(N));
  for (int g = 0; g < N; ++g)
    leaf_of[at(g)] = plan_.leaf_of(g);
  for (int g = 0; g < N; ++g)
    for (int q = 0; q < P; ++q)
      boost::add_edge(gpu_vertex(g), switch_vertex(q, NodeKind::LEAF, leaf_of[at(g)]), ClosEdge{p, id++}, graph_);
  // Switch-to-switch bundles.
  std::vector<int> count(at(std::max(S, C) + 1), 0), touched;
  for (int q = 0; q < P; ++q) {
    const Vertex spine0 = switch_vertex(q, NodeKind::SPINE, 0);
    for (int l = 0; l < L; ++l)
      add_bundles(
          graph_, switch_vertex(q, NodeKind::LEAF, l), u, [&](int j) { return plan_.leaf_uplink_target(l, j); },
          spine0, count, touched, id);
    if (plan_.tiers() == 3) {
      const Vertex core0 = switch_vertex(q, NodeKind::CORE, 0);
      for (int s = 0; s < S; ++s)
        add_bundles(
            graph_, switch_vertex(q, NodeKind::SPINE, s), plan_.spine_uplinks(s),
            [&](int t) { return plan_.spine_uplink_target(s, t); }, core0, count, touched, id);
    }
  }
}

Vertex ClosGraph::switch_vertex(int plane, NodeKind kind, int index) const {
  Vertex v = static_cast<Vertex>(plan_.gpus()) + static_cast<Vertex>(plane) * static_cast<Vertex>(per_plane_);
  switch (kind) {
  case NodeKind::LEAF: return v + static_cast<Vertex>(index);
  case NodeKind::SPINE: return v + static_cast<Vertex>(plan_.leaves() + index);
  case NodeKind::CORE: return v + static_cast<Vertex>(plan_.leaves() + plan_.spines() + index);
  case NodeKind::GPU: break;
  }
  throw std::logic_error("ClosGraph::switch_vertex: a GPU is not a switch");
}

std::string ClosGraph::vertex_name(Vertex v) const {
  const ClosVertex& x = graph_[v];
  if (x.kind == NodeKind::GPU) return plan_.layout().gpu_name(x.index);
  return fmt::format("plane{}/{}{:04d}", x.plane, node_kind_name(x.kind), x.index);
}

double ClosGraph::bisection_gbps() const {
  // Reduced flow network of plane 0 (see the header): 0 = source, 1 = sink, 2 + local switch index.
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, std::int64_t,
                      boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const Vertex base = switch_vertex(0, NodeKind::LEAF, 0);
  const auto local = [&](Vertex v) { return static_cast<std::size_t>(v - base) + 2; };
  FlowGraph f(at(per_plane_ + 2));
  auto cap = boost::get(boost::edge_capacity, f);
  auto rev = boost::get(boost::edge_reverse, f);
  const auto add_pair = [&](std::size_t a, std::size_t b, std::int64_t ab, std::int64_t ba) {
    const auto e1 = boost::add_edge(a, b, f).first;
    const auto e2 = boost::add_edge(b, a, f).first;
    cap[e1] = ab;
    cap[e2] = ba;
    rev[e1] = e2;
    rev[e2] = e1;
  };
  const std::int64_t half = plan_.gpus() / 2;
  std::int64_t assigned = 0;
  for (int l = 0; l < plan_.leaves(); ++l) {
    const Vertex leaf = switch_vertex(0, NodeKind::LEAF, l);
    std::int64_t a_ports = 0, b_ports = 0;
    for (auto [e, end] = boost::out_edges(leaf, graph_); e != end; ++e) {
      const Vertex other = boost::target(*e, graph_);
      const int links = graph_[*e].links;
      if (graph_[other].kind == NodeKind::GPU) {
        (assigned++ < half ? a_ports : b_ports) += links;
      } else if (other > leaf) { // each switch-switch edge once; links are full duplex
        add_pair(local(leaf), local(other), links, links);
      }
    }
    if (a_ports > 0) add_pair(0, local(leaf), a_ports, 0);
    if (b_ports > 0) add_pair(local(leaf), 1, b_ports, 0);
  }
  if (plan_.tiers() == 3)
    for (int s = 0; s < plan_.spines(); ++s) {
      const Vertex spine = switch_vertex(0, NodeKind::SPINE, s);
      for (auto [e, end] = boost::out_edges(spine, graph_); e != end; ++e) {
        const Vertex other = boost::target(*e, graph_);
        if (graph_[other].kind == NodeKind::CORE) add_pair(local(spine), local(other), graph_[*e].links, graph_[*e].links);
      }
    }
  const std::int64_t links = boost::push_relabel_max_flow(f, 0, 1);
  return static_cast<double>(links) * plan_.spec().port_gbps * plan_.planes();
}

int ClosGraph::diameter_hops() const {
  const int L = plan_.leaves();
  if (L <= 1) return 1;
  // Plane 0's switches as a plain undirected graph, local indices.
  using SwitchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  const Vertex base = switch_vertex(0, NodeKind::LEAF, 0);
  SwitchGraph sg(at(per_plane_));
  std::map<std::vector<std::size_t>, int> classes; // upper neighbours -> representative leaf
  for (int v = 0; v < per_plane_; ++v) {
    const Vertex gv = base + static_cast<Vertex>(v);
    std::vector<std::size_t> upper;
    for (auto [e, end] = boost::out_edges(gv, graph_); e != end; ++e) {
      const Vertex other = boost::target(*e, graph_);
      if (graph_[other].kind == NodeKind::GPU) continue;
      const std::size_t o = static_cast<std::size_t>(other - base);
      if (o > static_cast<std::size_t>(v)) boost::add_edge(static_cast<std::size_t>(v), o, sg);
      upper.push_back(o);
    }
    if (v < L) {
      std::sort(upper.begin(), upper.end());
      classes.emplace(std::move(upper), v);
    }
  }
  int diameter = 0;
  std::vector<int> dist(at(per_plane_));
  for (const auto& [upper, rep] : classes) {
    std::fill(dist.begin(), dist.end(), -1);
    dist[at(rep)] = 0;
    boost::breadth_first_search(
        sg, static_cast<std::size_t>(rep),
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(
            boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, sg)), boost::on_tree_edge()))));
    for (int l = 0; l < L; ++l) {
      if (dist[at(l)] < 0) throw std::logic_error("ClosGraph: plane 0 is not connected");
      diameter = std::max(diameter, dist[at(l)] + 1);
    }
  }
  return diameter;
}

FabricSizing ClosGraph::counts() const {
  const FabricSpec& spec = plan_.spec();
  FabricSizing z;
  z.gpus = plan_.gpus();
  z.planes = plan_.planes();
  z.tiers = plan_.tiers();
  z.nic_ports_per_gpu = spec.nic_ports_per_gpu;
  z.port_gbps = spec.port_gbps;
  z.radix = plan_.radix();
  z.leaf_down_ports = plan_.leaf_down_ports();
  z.leaf_up_ports = plan_.leaf_up_ports();
  z.rail_groups = static_cast<int>(plan_.groups().size());
  z.leaves_per_plane = plan_.leaves();
  z.spines_per_plane = plan_.spines();
  z.cores_per_plane = plan_.cores();
  z.pods_per_plane = plan_.tiers() == 3 ? plan_.pods() : 0;
  z.max_gpus = plan_.max_gpus();

  // Counts from the graph.
  const int ppt = spec.ports_per_transceiver;
  for (auto [v, end] = boost::vertices(graph_); v != end; ++v) {
    const bool gpu = graph_[*v].kind == NodeKind::GPU;
    if (!gpu) ++z.switches;
    std::int64_t optical_ports = 0;
    for (auto [e, eend] = boost::out_edges(*v, graph_); e != eend; ++e) {
      const bool gpu_link = gpu || graph_[boost::target(*e, graph_)].kind == NodeKind::GPU;
      const Media media = gpu_link ? spec.gpu_link_media : spec.switch_link_media;
      if (media == Media::OPTICS) optical_ports += graph_[*e].links;
    }
    z.optics += (optical_ports + ppt - 1) / ppt;
  }
  for (auto [e, end] = boost::edges(graph_); e != end; ++e) {
    const bool gpu_link = graph_[boost::source(*e, graph_)].kind == NodeKind::GPU ||
                          graph_[boost::target(*e, graph_)].kind == NodeKind::GPU;
    const int links = graph_[*e].links;
    (gpu_link ? z.gpu_links : z.switch_links) += links;
    if ((gpu_link ? spec.gpu_link_media : spec.switch_link_media) == Media::OPTICS) z.optical_links += links;
  }
  z.links = z.gpu_links + z.switch_links;
  z.cables = z.links;
  z.switch_power_w = static_cast<double>(z.switches) * spec.switch_power_w;
  z.optics_power_w = static_cast<double>(z.optics) * spec.transceiver_power_w;
  z.fabric_power_w = z.switch_power_w + z.optics_power_w;
  return z;
}

FabricSizing ClosGraph::sizing() const {
  const FabricSpec& spec = plan_.spec();
  FabricSizing z = counts();
  z.bisection_gbps = bisection_gbps();
  z.full_bisection_gbps = static_cast<double>(z.gpus / 2) * spec.gpu_bw_gbps();
  z.full_bisection = z.bisection_gbps >= z.full_bisection_gbps * (1 - 1e-12);
  z.diameter_hops = diameter_hops();
  return z;
}

int ClosGraph::components(const FabricState& state, std::vector<int>& gpu_component) const {
  if (&state.plan() != &plan_ && (state.plan().gpus() != plan_.gpus() || state.plan().leaves() != plan_.leaves()))
    throw std::logic_error("ClosGraph::components: the state belongs to another fabric");
  const int P = plan_.planes(), L = plan_.leaves(), S = plan_.spines(), u = plan_.leaf_up_ports();
  std::vector<char> edge_up(boost::num_edges(graph_), 0);
  std::vector<int> live(at(std::max(S, plan_.cores()) + 1), 0);
  for (auto [e, end] = boost::edges(graph_); e != end; ++e) {
    const ClosVertex& a = graph_[boost::source(*e, graph_)];
    const ClosVertex& b = graph_[boost::target(*e, graph_)];
    if (a.kind == NodeKind::GPU || b.kind == NodeKind::GPU) {
      const ClosVertex& gpu = a.kind == NodeKind::GPU ? a : b;
      const ClosVertex& leaf = a.kind == NodeKind::GPU ? b : a;
      edge_up[at(graph_[*e].id)] = state.port_up_count(gpu.index, leaf.plane) > 0;
    }
  }
  // Switch bundles: a bundle is up while one of its links is.
  for (int q = 0; q < P; ++q) {
    for (int l = 0; l < L; ++l) {
      for (int j = 0; j < u; ++j)
        if (state.leaf_uplink_up(q, l, j)) ++live[at(plan_.leaf_uplink_target(l, j))];
      const Vertex v = switch_vertex(q, NodeKind::LEAF, l);
      for (auto [e, end] = boost::out_edges(v, graph_); e != end; ++e) {
        const ClosVertex& o = graph_[boost::target(*e, graph_)];
        if (o.kind == NodeKind::SPINE) edge_up[at(graph_[*e].id)] = live[at(o.index)] > 0;
      }
      for (int j = 0; j < u; ++j)
        live[at(plan_.leaf_uplink_target(l, j))] = 0;
    }
    if (plan_.tiers() == 3)
      for (int s = 0; s < S; ++s) {
        const int n = plan_.spine_uplinks(s);
        for (int t = 0; t < n; ++t)
          if (state.spine_uplink_up(q, s, t)) ++live[at(plan_.spine_uplink_target(s, t))];
        const Vertex v = switch_vertex(q, NodeKind::SPINE, s);
        for (auto [e, end] = boost::out_edges(v, graph_); e != end; ++e) {
          const ClosVertex& o = graph_[boost::target(*e, graph_)];
          if (o.kind == NodeKind::CORE) edge_up[at(graph_[*e].id)] = live[at(o.index)] > 0;
        }
        for (int t = 0; t < n; ++t)
          live[at(plan_.spine_uplink_target(s, t))] = 0;
      }
  }
  const auto vertex_up = [&](Vertex v) {
    const ClosVertex& x = graph_[v];
    if (x.kind == NodeKind::GPU) return true;
    const ElementKind kind = x.kind == NodeKind::LEAF    ? ElementKind::LEAF
                             : x.kind == NodeKind::SPINE ? ElementKind::SPINE
                                                         : ElementKind::CORE;
    return state.switch_up(x.plane, kind, x.index);
  };
  const auto edge_kept = [&](boost::graph_traits<Graph>::edge_descriptor e) {
    return edge_up[at(graph_[e].id)] != 0;
  };
  const boost::filtered_graph<Graph, std::function<bool(boost::graph_traits<Graph>::edge_descriptor)>,
                              std::function<bool(Vertex)>>
      fg(graph_, edge_kept, vertex_up);
  std::vector<int> component(boost::num_vertices(graph_), -1);
  const int n = boost::connected_components(
      fg, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, graph_)));
  gpu_component.assign(component.begin(), component.begin() + plan_.gpus());
  return n;
}

ClosGraph::DotView ClosGraph::dot_view(std::size_t max_vertices, std::size_t max_edges) const {
  DotView view;
  auto& g = view.graph;
  // add_vertex(g) then set the bundle: add_vertex(property, g) trips GCC 12's -Wuninitialized inside
  // Boost's named_graph under -fsanitize.
  const auto add_node = [&g](DotNode node) {
    const auto v = boost::add_vertex(g);
    g[v] = std::move(node);
    return v;
  };
  const auto shape = [](NodeKind k) { return k == NodeKind::GPU ? std::string("box") : std::string("ellipse"); };
  const auto links_label = [](int links) { return links > 1 ? fmt::format("{}", links) : std::string{}; };
  if (boost::num_vertices(graph_) <= max_vertices) {
    view.title = fmt::format("{} GPUs, {} plane(s), {} tier(s): every GPU and switch", plan_.gpus(),
                             plan_.planes(), plan_.tiers());
    for (auto [v, end] = boost::vertices(graph_); v != end; ++v)
      add_node(DotNode{vertex_name(*v), vertex_name(*v), shape(graph_[*v].kind)});
    for (auto [e, end] = boost::edges(graph_); e != end; ++e)
      boost::add_edge(boost::source(*e, graph_), boost::target(*e, graph_), DotEdge{links_label(graph_[*e].links)}, g);
    return view;
  }
  // Plane 0, one node per leaf's GPUs.
  const int L = plan_.leaves();
  const Vertex base = switch_vertex(0, NodeKind::LEAF, 0);
  std::size_t edges = static_cast<std::size_t>(L);
  for (int v = 0; v < per_plane_; ++v)
    for (auto [e, end] = boost::out_edges(base + static_cast<Vertex>(v), graph_); e != end; ++e)
      if (boost::target(*e, graph_) > base + static_cast<Vertex>(v)) ++edges;
  if (edges <= max_edges) {
    view.title = fmt::format("plane 0 of {} (all planes are identical); each leaf's GPUs drawn as one node",
                             plan_.planes());
    for (int v = 0; v < per_plane_; ++v) {
      const Vertex gv = base + static_cast<Vertex>(v);
      add_node(DotNode{vertex_name(gv), vertex_name(gv), "ellipse"});
    }
    for (int l = 0; l < L; ++l) {
      const auto n =
          add_node(DotNode{fmt::format("leaf{:04d}/gpus", l), fmt::format("{} GPUs", plan_.leaf_gpu_count(l)), "box"});
      boost::add_edge(n, static_cast<std::size_t>(l),
                      DotEdge{links_label(plan_.leaf_gpu_count(l) * plan_.ports_per_plane())}, g);
    }
    for (int v = 0; v < per_plane_; ++v) {
      const Vertex gv = base + static_cast<Vertex>(v);
      for (auto [e, end] = boost::out_edges(gv, graph_); e != end; ++e) {
        const Vertex o = boost::target(*e, graph_);
        if (o > gv && graph_[o].kind != NodeKind::GPU)
          boost::add_edge(static_cast<std::size_t>(v), static_cast<std::size_t>(o - base),
                          DotEdge{links_label(graph_[*e].links)}, g);
      }
    }
    return view;
  }
  // One node per tier of plane 0.
  view.title = fmt::format("plane 0 of {} summarised by tier ({} switch-to-switch edges are too many to draw)",
                           plan_.planes(), edges - static_cast<std::size_t>(L));
  const auto gpus = add_node(DotNode{"gpus", fmt::format("{} GPUs", plan_.gpus()), "box"});
  const auto leaves = add_node(DotNode{
      "leaves", fmt::format("{} leaves ({} down / {} up ports)", L, plan_.leaf_down_ports(), plan_.leaf_up_ports()),
      "ellipse"});
  boost::add_edge(gpus, leaves, DotEdge{fmt::format("{} links", plan_.gpu_links_per_plane())}, g);
  if (plan_.tiers() >= 2) {
    const auto spines = add_node(DotNode{"spines", fmt::format("{} spines", plan_.spines()), "ellipse"});
    boost::add_edge(leaves, spines, DotEdge{fmt::format("{} links", plan_.leaf_uplinks_per_plane())}, g);
    if (plan_.tiers() == 3) {
      const auto cores =
          add_node(DotNode{"cores", fmt::format("{} cores ({} pods)", plan_.cores(), plan_.pods()), "ellipse"});
      boost::add_edge(spines, cores, DotEdge{fmt::format("{} links", plan_.spine_uplinks_per_plane())}, g);
    }
  }
  return view;
}

} // namespace dcsim::fabric
