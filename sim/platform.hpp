// The SimGrid side of a simulation: one engine, one platform zone, and the binding of dcsim's event
// queue to SimGrid's clock. Only this file (and its .cpp) creates the engine or sets its configuration.
//
// The platform is a single custom zone (`IndexedZone`) holding every host and link. Routes are computed
// on demand by a function the models provide, from dense host indices: no route tables, no per-rack
// sub-zones. SimGrid 3.32 searches the zone tree on every host creation and scans all hosts on every
// zone seal, so a zone per rack makes building O(hosts x zones); one zone builds 131,040 GPU hosts with
// their NVLink ports in about 2 s (docs/architecture.md, SimGrid, measured again by tools/bench).
//
// Network model settings (CM02, TCP-gamma 0, no cross-traffic) are fixed before the first zone is made:
// SimGrid's default LV08 corrections distort datacenter links (docs/architecture.md, SimGrid).
//
// One engine per process: SimGrid cannot reset its clock. Replicas run in forked children of the
// process that built the platform (sim/process_pool.hpp), each with its own copy.
//
// Time: dcsim's event queue and SimGrid's engine share one clock, advanced in two modes.
//   - While no SimGrid activity (transfer) is in flight, the queue's events fire directly, one after
//     the other, and SimGrid's clock is brought forward only when needed (sync(), before starting an
//     activity, and at the end). SimGrid would have nothing to compute between those events; skipping
//     its event loop makes an event cost ~0.5 µs instead of ~5 µs.
//   - While activities are in flight, SimGrid owns the clock: one kernel timer stays armed at the
//     queue's earliest date and the engine runs, so model events and activity completions interleave
//     in date order.
// Either way every event runs at its exact date, and SimGrid's clock equals it whenever SimGrid
// computes anything, within SimGrid's own date tolerance (10 µs: its run loop treats dates closer than
// that as equal, so it may stop that much short of a date and leave our events there to us).
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
  /// Computes the route between two host indices: appends link indices and adds any latency (seconds)
  /// beyond the links' own (switch traversals); the links' latencies are added by the platform.
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
  /// Turns a host on or off. SimGrid sees the change at the next moment it computes (a transfer
  /// starts, or the run ends): until then nothing in SimGrid can observe it, and applying changes
  /// lazily means that a host failed and repaired between two such moments costs nothing in SimGrid
  /// (in a forked replica, each SimGrid host touched is a copy-on-write page fault, ~10 µs here).
  void set_host_on(int index, bool on);
  /// The host's state as last set (what SimGrid sees from its next computation on).
  bool host_on(int index) const;
  /// Applies pending host state changes to SimGrid now.
  void apply_host_states();
  /// Link state changes after seal: communications using a link that is off fail.
  void set_link_on(int index, bool on);
  bool link_on(int index) const;
  void set_link_bandwidth(int index, double bandwidth_bytes_per_s);
  double link_bandwidth(int index) const;

  /// Binds the event queue whose events this platform's clock advances through.
  void bind(EventQueue& queue);
  /// Runs every event dated <= end (and SimGrid activities), then leaves both clocks at `end`.
  void run_until(Tick end);
  /// Brings SimGrid's clock to the queue's date (no activity may be in flight when it lags).
  void sync();

  /// Starts a transfer of `bytes` from one host to another over the route the router gives; `done` is
  /// called at its completion (true) or failure (false: a link or host on the way turned off, or an
  /// endpoint already off at the start), with the queue's clock at that date.
  void transfer(int src_host, int dst_host, double bytes, std::function<void(bool ok)> done);
  int transfers_in_flight() const { return in_flight_; }

  /// One transfer of `rates_isolated`.
  struct Flow {
    int src_host = -1;
    int dst_host = -1;
    double bytes = 0;
  };
  /// Starts all `flows` at SimGrid's current date and returns the rate (bytes/s) SimGrid's sharing
  /// gives each while all are in flight, in order (0 for a flow that cannot run: an endpoint or a link
  /// on its route is off). Measured as the bytes each moves between `settle_s` (past route latencies)
  /// and `settle_s + window_s` after the start; flows must be large enough not to end before that.
  /// SimGrid's clock moves and cannot come back: call this only in a process that is discarded
  /// afterwards (sim::run_in_child), never in one that goes on simulating. The event queue is neither
  /// read nor advanced.
  std::vector<double> rates_isolated(const std::vector<Flow>& flows, double settle_s, double window_s);

  /// SimGrid's current date in ticks.
  static Tick clock_ticks();

private:
  struct Transfers;
  IndexedZone* zone_ = nullptr; // owned by the engine
  EventQueue* queue_ = nullptr;
  void* armed_timer_ = nullptr; // simgrid::kernel::timer::Timer*
  Tick armed_date_ = -1;
  bool simgrid_mode_ = false; ///< a kernel timer follows the queue's head
  int in_flight_ = 0;
  bool isolated_ = false; ///< rates_isolated has run
  std::unique_ptr<Transfers> transfers_;
  std::vector<char> host_on_;      ///< desired state per host
  std::vector<char> host_pending_; ///< per host: listed in host_changed_
  std::vector<char> host_applied_; ///< state SimGrid has per host (only this class turns hosts on and off, so
                                   ///< the mirror spares Host::is_on, which costs microseconds per call)
  std::vector<int> host_changed_;  ///< hosts whose desired state may differ from SimGrid's
  void rearm();
  void disarm();
  void sync_clock(); ///< sync() without applying host states
};

} // namespace dcsim::sim
