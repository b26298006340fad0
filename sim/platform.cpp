#include "sim/platform.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/log.h>

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

protected:
  void get_local_route(const kr::NetPoint* src, const kr::NetPoint* dst, kr::Route* into, double* latency) override {
    if (!route) throw std::logic_error("IndexedZone: no router installed");
    scratch_.clear();
    double lat = 0.0;
    route(host_of_netpoint.at(src->id()), host_of_netpoint.at(dst->id()), scratch_, lat);
    for (int l : scratch_)
      into->link_list_.push_back(link_impls.at(l));
    if (latency) *latency += lat;
  }

private:
  std::vector<int> scratch_;
};

Platform::Platform(const std::string& zone_name) {
  if (sg4::Engine::has_instance()) throw std::logic_error("sim::Platform: one SimGrid engine per process");
  static int argc = 1;
  static char arg0[] = "dcsim";
  static char* argv[] = {arg0, nullptr};
  xbt_log_control_set("root.thres:critical");
  new sg4::Engine(&argc, argv); // lives as long as the process: teardown of 10^5 hosts costs seconds
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/crosstraffic:0");
  zone_ = new IndexedZone(zone_name); // the first zone created becomes the root
}

Platform::~Platform() {
  if (armed_timer_) static_cast<Timer*>(armed_timer_)->remove();
}

int Platform::add_host(const std::string& name, double speed_flops) {
  sg4::Host* h = zone_->get_iface()->create_host(name, speed_flops);
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

void Platform::seal() {
  zone_->seal();
  sg4::Engine::get_instance()->seal_platform();
}

int Platform::host_count() const { return static_cast<int>(zone_->hosts.size()); }
int Platform::link_count() const { return static_cast<int>(zone_->links.size()); }
sg4::Host* Platform::host(int index) const { return zone_->hosts.at(static_cast<std::size_t>(index)); }
sg4::Link* Platform::link(int index) const { return zone_->links.at(static_cast<std::size_t>(index)); }

void Platform::set_host_on(int index, bool on) {
  sg4::Host* h = host(index);
  if (on)
    h->turn_on();
  else
    h->turn_off();
}

bool Platform::host_on(int index) const { return host(index)->is_on(); }

void Platform::set_link_on(int index, bool on) {
  sg4::Link* l = link(index);
  if (on == l->is_on()) return;
  if (on)
    l->turn_on();
  else
    l->turn_off();
}

bool Platform::link_on(int index) const { return link(index)->is_on(); }

void Platform::set_link_bandwidth(int index, double bandwidth_bytes_per_s) {
  if (!(bandwidth_bytes_per_s > 0)) throw std::logic_error("Platform::set_link_bandwidth: must be > 0 (turn the link off)");
  link(index)->set_bandwidth(bandwidth_bytes_per_s);
}

double Platform::link_bandwidth(int index) const { return link(index)->get_bandwidth(); }

void Platform::bind(EventQueue& queue) {
  queue_ = &queue;
  queue.set_head_changed_hook([this] { rearm(); });
  rearm();
}

void Platform::rearm() {
  const Tick head = queue_->next_date();
  if (head == armed_date_) return;
  if (armed_timer_) {
    static_cast<Timer*>(armed_timer_)->remove();
    armed_timer_ = nullptr;
    armed_date_ = -1;
  }
  if (head < 0) return;
  armed_date_ = head;
  armed_timer_ = Timer::set(to_seconds(head), [this, head] {
    armed_timer_ = nullptr; // SimGrid deletes a timer after running it
    armed_date_ = -1;
    queue_->fire_due(head);
  });
}

void Platform::run_until(Tick end) {
  sg4::Engine::get_instance()->run_until(to_seconds(end));
  if (queue_) {
    queue_->fire_due(end);
    queue_->set_head_changed_hook({});
    if (armed_timer_) static_cast<Timer*>(armed_timer_)->remove();
    armed_timer_ = nullptr;
    armed_date_ = -1;
  }
}

Tick Platform::clock_ticks() { return to_ticks(sg4::Engine::get_clock()); }

} // namespace dcsim::sim
