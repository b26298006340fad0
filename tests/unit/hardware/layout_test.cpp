#include "models/hardware/layout.hpp"

#include <catch2/catch.hpp>

using namespace dcsim::hardware;

namespace {
HardwareSpec nvl72() {
  HardwareSpec h;
  h.rack.kind = RackKind::NVL72;
  h.rack.gpus = 72;
  h.rack.gpus_per_tray = 4;
  h.rack.spare_gpus = 8;
  return h;
}
HardwareSpec hgx() {
  HardwareSpec h;
  h.rack.kind = RackKind::HGX;
  h.rack.gpus_per_node = 8;
  h.rack.nodes_per_rack = 2;
  return h;
}
} // namespace

TEST_CASE("nvl72: a rack is one NVLink domain of 18 trays of 4 GPUs", "[unit][layout]") {
  const Layout l(nvl72(), ClusterSpec{3});
  CHECK(l.gpus() == 216);
  CHECK(l.domains() == 3);
  CHECK(l.domain_gpus() == 72);
  CHECK(l.domain_usable_gpus() == 64);
  CHECK(l.unit_count(Scope::TRAY) == 54);
  CHECK(l.unit_count(Scope::NODE) == 54); // a compute tray is a node
  CHECK(l.unit_count(Scope::RACK) == 3);
  CHECK(l.unit_range(Scope::TRAY, 19).first == 76);
  CHECK(l.unit_range(Scope::TRAY, 19).count == 4);
  CHECK(l.unit_of(Scope::RACK, 143) == 1);
  CHECK(l.gpu_name(75) == "rack0001/tray00/gpu3");
  CHECK(l.unit_name(Scope::TRAY, 35) == "rack0001/tray17");
  CHECK(l.unit_name(Scope::RACK, 2) == "rack0002");
  CHECK(l.domain_name(1) == "rack0001");
  CHECK(l.has_scope(Scope::TRAY));
}

TEST_CASE("hgx: each server is its own NVLink domain", "[unit][layout]") {
  const Layout l(hgx(), ClusterSpec{4});
  CHECK(l.gpus() == 64);
  CHECK(l.gpus_per_rack() == 16);
  CHECK(l.domains() == 8);
  CHECK(l.domain_usable_gpus() == 8);
  CHECK(l.domain_of(17) == 2);
  CHECK(l.rack_of(17) == 1);
  CHECK(l.gpu_name(17) == "rack0001/node0/gpu1");
  CHECK(l.domain_name(3) == "rack0001/node1");
  CHECK(l.unit_name(Scope::NODE, 3) == "rack0001/node1");
  CHECK_FALSE(l.has_scope(Scope::TRAY));
}
