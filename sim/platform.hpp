// The SimGrid side of a simulation: one engine, one platform zone, and the binding of dcsim's event
// queue to SimGrid's clock. Only sim/ includes SimGrid, creates the engine or sets its configuration;
// nothing outside sim/ sees a SimGrid type (hosts and links are dense integer indices).
//
// What SimGrid computes in dcsim, and what it does not (docs/architecture.md, "What SimGrid computes").
//   It computes two things that reach outputs. First, rates_isolated(): the rate SimGrid's max-min sharing
//   (network model CM02) gives each of a set of flows started at once on the scale-out fabric. The
//   fabric communication model (models/fabric/fabric_comm_model.hpp) turns those rates into a model
//   job's scale-out collective times, so only scenarios with a `fabric` and a job described by a
//   `model` depend on SimGrid: that job's step time, and through it its MFU, tokens/s, degraded time,
//   checkpoint interval in steps and goodput, and `dcsim step` on such a scenario.
//   Second, transfer() and the clock binding (bind, run_until, sync): flows played to completion
//   interleaved with the event queue, in a replica's own clock: checkpoint drains and restores over
//   storage (models/storage/storage_traffic.hpp), whose durations, contention and failures reach the
//   outputs. The platform's sections (add_section_router) keep the fabric and the storage network apart.
//   It does not compute anything else: failures, repairs, blocking checkpoint writes, scheduling,
//   ledgers, cooling, power and measured jobs' paces are dcsim's own event queue and closed-form models;
//   NVLink is analytic (not in the platform); GPUs do no computation in SimGrid (a host is only the
//   endpoint of flows, its speed unused) and their failures do not reach SimGrid (probes ask about the
//   network, not the GPUs). With neither a fabric nor storage tiers no platform is built at all.
//
// The platform is a single custom zone (`IndexedZone`) holding every host and link. Routes are computed
// on demand by a function the models provide, from dense host indices: no route tables, no per-rack
// sub-zones. SimGrid 3.32 searches the zone tree on every host creation and scans all hosts on every
// zone seal, so a zone per rack makes building O(hosts x zones); one zone builds 131,040 GPU hosts with
// their fabric access links in about a second (docs/architecture.md, SimGrid, measured by tools/bench
// fabric).
//
// Network model settings (CM02, TCP-gamma 0, no cross-traffic) are fixed before the first zone is made:
// SimGrid's default LV08 corrections distort datacenter links (docs/architecture.md, SimGrid).
//
// One engine per process: SimGrid cannot reset its clock. rates_isolated() moves the clock for good,
// so it runs in a forked child that is discarded afterwards (sim::run_in_child).
//
// Time, when transfers are played: dcsim's event queue and SimGrid's engine share one clock, advanced
// in two modes.
//   - While no SimGrid activity (transfer) is in flight, the queue's events fire directly, one after
//     the other, and SimGrid's clock is brought forward only when needed (sync(), before starting an
//     activity, and at the end).
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

  /// Adds a host: an endpoint of flows (it computes nothing).
  int add_host(const std::string& name);
  DuplexLink add_duplex_link(const std::string& name, double bandwidth_bytes_per_s, double latency_s);
  void set_router(RouteFn route);
  /// Routes between hosts of [first_host, end_host) with `route` instead (a section of the platform,
  /// e.g. a storage network beside the fabric); a route between two sections is an error.
  void add_section_router(int first_host, int end_host, RouteFn route);
  void seal();

  int host_count() const;
  int link_count() const;
  std::string host_name(int index) const;
  /// Asks SimGrid for the route between two hosts (after seal): returns its number of links and adds
  /// its latency (links' and router's), as SimGrid will use it.
  int route_link_count(int src_host, int dst_host, double& latency_s) const;
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
  /// called at its completion (true) or failure (false: a link on the way is off, or turns off), with
  /// the queue's clock at that date. Needs a bound queue.
  void transfer(int src_host, int dst_host, double bytes, std::function<void(bool ok)> done);
  int transfers_in_flight() const { return in_flight_; }

  /// One transfer of `rates_isolated`.
  struct Flow {
    int src_host = -1;
    int dst_host = -1;
    double bytes = 0;
  };
  /// Starts all `flows` at SimGrid's current date and returns the rate (bytes/s) SimGrid's sharing
  /// gives each while all are in flight, in order (0 for a flow that cannot run: a link on its route is
  /// off). Measured as the bytes each moves between `settle_s` (past route latencies)
  /// and `settle_s + window_s` after the start; flows must be large enough not to end before that.
  /// SimGrid's clock moves and cannot come back: call this only in a process that is discarded
  /// afterwards (sim::run_in_child), never in one that goes on simulating. The event queue is neither
  /// read nor advanced; transfers in flight (started by transfer()) go on sharing links with the flows,
  /// but their completions are ignored in this process.
  std::vector<double> rates_isolated(const std::vector<Flow>& flows, double settle_s, double window_s);

  /// SimGrid's current date in ticks.
  static Tick clock_ticks();
  static double clock_s();

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
  void rearm();
  void disarm();
};

} // namespace dcsim::sim
