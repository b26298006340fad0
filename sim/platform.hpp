// The SimGrid side of a simulation: one engine, one platform zone, and the binding of dcsim's event
// queue to SimGrid's clock. Only this file (and its .cpp) creates the engine or sets its configuration.
//
// The platform is a single custom zone (`IndexedZone`) holding every host and link. Routes are computed
// on demand by a function the models provide, from dense host indices: no route tables, no per-rack
// sub-zones. SimGrid 3.32 searches the zone tree on every host creation and scans all hosts on every
// zone seal, so a zone per rack makes building O(hosts x zones); one zone builds 131,040 GPU hosts with
// their NVLink ports in about 2 s (SIMGRID-NOTES.md §2.3, measured again by tools/bench).
//
// Network model settings (CM02, TCP-gamma 0, no cross-traffic) are fixed before the first zone is made:
// SimGrid's default LV08 corrections distort datacenter links (SIMGRID-NOTES.md §7.3).
//
// One engine per process: SimGrid cannot reset its clock. Replicas run in forked children of the
// process that built the platform (sim/process_pool.hpp), each with its own copy.
#pragma once

#include "sim/event_queue.hpp"
#include "sim/units.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simgrid::s4u {
class Host;
class Link;
} // namespace simgrid::s4u

namespace dcsim::sim {

class IndexedZone;

class Platform {
public:
  /// Directed link indices of one full-duplex link: `up` from the host side, `down` towards it.
  struct DuplexLink {
    int up = -1;
    int down = -1;
  };
  /// Computes the route between two host indices: appends link indices and adds latency (seconds).
  using RouteFn = std::function<void(int src_host, int dst_host, std::vector<int>& links, double& latency_s)>;

  /// Creates the process's SimGrid engine. Throws if one already exists in this process.
  explicit Platform(const std::string& zone_name);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  int add_host(const std::string& name, double speed_flops);
  DuplexLink add_duplex_link(const std::string& name, double bandwidth_bytes_per_s, double latency_s);
  void set_router(RouteFn route);
  void seal();

  int host_count() const;
  int link_count() const;
  simgrid::s4u::Host* host(int index) const;
  simgrid::s4u::Link* link(int index) const;
  void set_host_on(int index, bool on);
  bool host_on(int index) const;
  /// Link state changes after seal: communications using a link that is off fail.
  void set_link_on(int index, bool on);
  bool link_on(int index) const;
  void set_link_bandwidth(int index, double bandwidth_bytes_per_s);
  double link_bandwidth(int index) const;

  /// Drives `queue` from SimGrid's clock: one kernel timer stays armed at the queue's earliest date.
  void bind(EventQueue& queue);
  /// Runs the engine until `end`, then runs the events dated exactly `end` and disarms the timer.
  void run_until(Tick end);

  /// SimGrid's current date in ticks.
  static Tick clock_ticks();

private:
  IndexedZone* zone_ = nullptr; // owned by the engine
  EventQueue* queue_ = nullptr;
  void* armed_timer_ = nullptr; // simgrid::kernel::timer::Timer*
  Tick armed_date_ = -1;
  void rearm();
};

} // namespace dcsim::sim
