#include "sim/platform.hpp"

#include "sim/interrupt.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/log.h>

#include <simgrid/s4u/Comm.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace sg4 = simgrid::s4u;
namespace kr = simgrid::kernel::routing;
using simgrid::kernel::timer::Timer;

namespace dcsim::sim {

/// One zone for the whole platform; routes come from Platform's RouteFn over dense indices.
class IndexedZone final : public kr::NetZoneImpl {
public:
  explicit IndexedZone(const std::string& name) : NetZoneImpl(name) {}

  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> links;
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> link_impls;
  std::vector<int> host_of_netpoint; // NetPoint::id() -> host index (-1: not a host)
  Platform::RouteFn route;
  struct Section {
    int first = 0, end = 0;
    Platform::RouteFn route;
  };
  std::vector<Section> sections;

  /// The router of the section holding both hosts (the whole platform's when they are in none).
  const Platform::RouteFn& router(int src, int dst) const {
    for (const Section& s : sections) {
      const bool a = src >= s.first && src < s.end, b = dst >= s.first && dst < s.end;
      if (a && b) return s.route;
      if (a || b) throw std::logic_error("IndexedZone: a route between two sections of the platform");
    }
    if (!route) throw std::logic_error("IndexedZone: no router installed");
    return route;
  }

protected:
  void get_local_route(const kr::NetPoint* src, const kr::NetPoint* dst, kr::Route* into, double* latency) override {
    scratch_.clear();
    double lat = 0.0;
    const int a = host_of_netpoint.at(src->id()), b = host_of_netpoint.at(dst->id());
    router(a, b)(a, b, scratch_, lat);
    for (int l : scratch_) {
      into->link_list_.push_back(link_impls.at(static_cast<std::size_t>(l)));
      lat += links[static_cast<std::size_t>(l)]->get_latency(); // a zone reports its links' latencies itself
    }
    if (latency) *latency += lat;
  }

private:
  std::vector<int> scratch_;
};

/// Transfers in flight, keyed by their activity (kept alive until completion: docs/architecture.md, SimGrid).
struct Platform::Transfers {
  std::map<const sg4::Activity*, std::pair<sg4::CommPtr, std::function<void(bool)>>> live;
  std::vector<sg4::CommPtr> finished; ///< released after SimGrid returns, not inside its completion
};

namespace {
/// SimGrid's run loop treats dates closer than this as equal (EngineImpl::run, double_equals 1e-5).
constexpr Tick SIMGRID_DATE_TOLERANCE = 10;
} // namespace

Platform::Platform(const std::string& zone_name) : transfers_(std::make_unique<Transfers>()) {
  if (sg4::Engine::has_instance()) throw std::logic_error("sim::Platform: one SimGrid engine per process");
  static int argc = 1;
  static char arg0[] = "dcsim";
  static char* argv[] = {arg0, nullptr};
  xbt_log_control_set("root.thres:critical");
  new sg4::Engine(&argc, argv); // lives as long as the process: teardown of 10^5 hosts costs seconds
  reinstall_interrupt_handlers(); // ours, not SimGrid's: an interrupted run cleans up its folders
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/crosstraffic:0");
  zone_ = new IndexedZone(zone_name); // the first zone created becomes the root
  sg4::Activity::on_completion_cb([this](const sg4::Activity& activity) {
    if (isolated_) return; // rates_isolated's process: transfers' completions do not reach the queue
    auto it = transfers_->live.find(&activity);
    if (it == transfers_->live.end()) return;
    auto done = std::move(it->second.second);
    const bool ok = activity.get_state() == sg4::Activity::State::FINISHED;
    transfers_->finished.push_back(std::move(it->second.first)); // SimGrid is still inside this activity
    transfers_->live.erase(it);
    --in_flight_;
    if (queue_) queue_->advance_to(clock_ticks());
    if (done) done(ok);
  });
}

Platform::~Platform() { disarm(); }

int Platform::add_host(const std::string& name) {
  sg4::Host* h = zone_->get_iface()->create_host(name, 1.0); // no computation ever runs: the speed is unused
  const auto np = static_cast<std::size_t>(h->get_netpoint()->id());
  if (np >= zone_->host_of_netpoint.size()) zone_->host_of_netpoint.resize(np + 1, -1);
  zone_->host_of_netpoint[np] = static_cast<int>(zone_->hosts.size());
  zone_->hosts.push_back(h);
  return static_cast<int>(zone_->hosts.size()) - 1;
}

Platform::DuplexLink Platform::add_duplex_link(const std::string& name, double bandwidth_bytes_per_s,
                                               double latency_s) {
  sg4::SplitDuplexLink* l = zone_->get_iface()->create_split_duplex_link(name, bandwidth_bytes_per_s);
  l->set_latency(latency_s);
  DuplexLink d;
  for (sg4::Link* half : {l->get_link_up(), l->get_link_down()}) {
    zone_->links.push_back(half);
    zone_->link_impls.push_back(half->get_impl());
  }
  d.up = static_cast<int>(zone_->links.size()) - 2;
  d.down = d.up + 1;
  return d;
}

void Platform::set_router(RouteFn route) { zone_->route = std::move(route); }

void Platform::add_section_router(int first_host, int end_host, RouteFn route) {
  zone_->sections.push_back({first_host, end_host, std::move(route)});
}

void Platform::seal() {
  zone_->seal();
  sg4::Engine::get_instance()->seal_platform();
  reinstall_interrupt_handlers();
}

int Platform::host_count() const { return static_cast<int>(zone_->hosts.size()); }
int Platform::link_count() const { return static_cast<int>(zone_->links.size()); }
namespace {
sg4::Host* host_at(const IndexedZone& zone, int index) { return zone.hosts.at(static_cast<std::size_t>(index)); }
sg4::Link* link_at(const IndexedZone& zone, int index) { return zone.links.at(static_cast<std::size_t>(index)); }
} // namespace

std::string Platform::host_name(int index) const { return host_at(*zone_, index)->get_name(); }

int Platform::route_link_count(int src_host, int dst_host, double& latency_s) const {
  std::vector<sg4::Link*> links;
  double latency = 0;
  host_at(*zone_, src_host)->route_to(host_at(*zone_, dst_host), links, &latency);
  latency_s += latency;
  return static_cast<int>(links.size());
}

void Platform::set_link_on(int index, bool on) {
  sg4::Link* l = link_at(*zone_, index);
  if (on == l->is_on()) return;
  if (on)
    l->turn_on();
  else
    l->turn_off();
}

bool Platform::link_on(int index) const { return link_at(*zone_, index)->is_on(); }

void Platform::set_link_bandwidth(int index, double bandwidth_bytes_per_s) {
  if (!(bandwidth_bytes_per_s > 0)) throw std::logic_error("Platform::set_link_bandwidth: must be > 0 (turn the link off)");
  link_at(*zone_, index)->set_bandwidth(bandwidth_bytes_per_s);
}

double Platform::link_bandwidth(int index) const { return link_at(*zone_, index)->get_bandwidth(); }

void Platform::bind(EventQueue& queue) {
  queue_ = &queue;
  queue.set_head_changed_hook([this] {
    if (simgrid_mode_) rearm();
  });
}

void Platform::disarm() {
  if (armed_timer_) static_cast<Timer*>(armed_timer_)->remove();
  armed_timer_ = nullptr;
  armed_date_ = -1;
}

void Platform::rearm() {
  const Tick head = queue_->next_date();
  if (head == armed_date_) return;
  disarm();
  if (head < 0) return;
  armed_date_ = head;
  // The queue's date may round below SimGrid's clock by less than a microsecond after a completion.
  const double date = std::max(to_seconds(head), sg4::Engine::get_clock());
  armed_timer_ = Timer::set(date, [this, head] {
    armed_timer_ = nullptr; // SimGrid deletes a timer after running it
    armed_date_ = -1;
    queue_->fire_due(head);
  });
}

void Platform::sync() {
  if (!queue_ || clock_ticks() >= queue_->now()) return;
  if (in_flight_ > 0) {
    if (queue_->now() - clock_ticks() <= SIMGRID_DATE_TOLERANCE) return; // the same date to SimGrid
    throw std::logic_error("Platform::sync: SimGrid's clock lags while transfers are in flight");
  }
  // With nothing to compute SimGrid would not move its clock: a no-op timer at the date makes it.
  const double date = to_seconds(queue_->now());
  Timer::set(date, [] {});
  sg4::Engine::get_instance()->run_until(date);
}

void Platform::run_until(Tick end) {
  auto* engine = sg4::Engine::get_instance();
  if (!queue_) {
    engine->run_until(to_seconds(end));
    return;
  }
  queue_->set_horizon(end);
  for (;;) {
    if (queue_->stopped()) break; // the run ended early (transfers in flight are abandoned)
    const Tick next = queue_->next_date();
    const bool due = next >= 0 && next <= end;
    if (in_flight_ == 0) {
      if (!due) break;
      queue_->fire_due(next); // nothing for SimGrid to compute: fire directly
      continue;
    }
    if (!due && clock_ticks() >= end) break; // transfers outlive the run
    // Transfers in flight: SimGrid advances the clock up to the next event, which its timer fires.
    const Tick target = due ? next : end;
    simgrid_mode_ = true;
    rearm();
    engine->run_until(to_seconds(target));
    simgrid_mode_ = false;
    disarm();
    transfers_->finished.clear();
    // SimGrid stops up to its date tolerance short of the target when a transfer ends just before it;
    // the target's events then run here (the loop comes back to them with next == target).
    const Tick after = queue_->next_date();
    if (after >= 0 && after <= target) queue_->fire_due(after);
  }
  if (!queue_->stopped()) queue_->advance_to(end);
  sync(); // SimGrid's clock at the end
}

void Platform::transfer(int src_host, int dst_host, double bytes, std::function<void(bool)> done) {
  if (!queue_) throw std::logic_error("Platform::transfer: no event queue is bound");
  sync();
  std::vector<int> route;
  double latency_s = 0;
  zone_->router(src_host, dst_host)(src_host, dst_host, route, latency_s);
  if (std::any_of(route.begin(), route.end(), [this](int l) { return !link_on(l); })) {
    // SimGrid fails such a communication at its start without reporting it: fail it here, at once.
    queue_->after(0, [done = std::move(done)] {
      if (done) done(false);
    });
    return;
  }
  sg4::CommPtr comm = sg4::Comm::sendto_init(host_at(*zone_, src_host), host_at(*zone_, dst_host));
  comm->set_payload_size(bytes);
  const sg4::Activity* key = comm.get();
  transfers_->live.emplace(key, std::make_pair(comm, std::move(done)));
  ++in_flight_;
  comm->start();
}

std::vector<double> Platform::rates_isolated(const std::vector<Flow>& flows, double settle_s, double window_s) {
  if (isolated_) throw std::logic_error("Platform::rates_isolated: once per process");
  isolated_ = true;
  disarm(); // a replica's timer must not fire the queue's events in this discarded process
  auto* engine = sg4::Engine::get_instance();
  const double start = sg4::Engine::get_clock();
  // Left in flight and alive on purpose: destroying a communication in flight makes SimGrid complain,
  // cancelling it from outside an actor is not supported, and the process is discarded anyway.
  auto& comms = *new std::vector<sg4::CommPtr>(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    comms[i] = sg4::Comm::sendto_init(host_at(*zone_, f.src_host), host_at(*zone_, f.dst_host));
    comms[i]->set_payload_size(f.bytes);
    comms[i]->start();
  }
  auto run_to = [engine](double date) { // a no-op timer makes SimGrid's clock reach the date
    Timer::set(date, [] {});
    engine->run_until(date);
  };
  auto remaining = [&] {
    std::vector<double> r(flows.size(), -1.0);
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (comms[i] && comms[i]->get_state() == sg4::Activity::State::STARTED) r[i] = comms[i]->get_remaining();
    return r;
  };
  run_to(start + settle_s);
  const std::vector<double> before = remaining();
  run_to(start + settle_s + window_s);
  const std::vector<double> after = remaining();
  std::vector<double> rates(flows.size(), 0.0);
  for (std::size_t i = 0; i < flows.size(); ++i)
    if (before[i] >= 0 && after[i] >= 0) rates[i] = (before[i] - after[i]) / window_s;
  return rates;
}

Tick Platform::clock_ticks() { return to_ticks(sg4::Engine::get_clock()); }
double Platform::clock_s() { return sg4::Engine::get_clock(); }

} // namespace dcsim::sim
