#include "models/cost/bill.hpp"

#include "models/hardware/layout.hpp"

#include <cmath>

namespace dcsim::cost {

FabricCounts fabric_counts(const fabric::FabricSizing& z) {
  FabricCounts f;
  f.switches = z.switches;
  f.switch_tbps = static_cast<double>(z.radix) * z.port_gbps / 1000.0;
  f.transceivers = z.optics;
  f.optical_cables = z.optical_links;
  f.copper_cables = z.cables - z.optical_links;
  return f;
}

BillCounts bill_counts(const Plant& s, const fabric::FabricSizing* fabric) {
  const hardware::Layout layout(s.hardware, s.cluster);
  BillCounts c;
  c.racks = layout.racks();
  c.gpus = layout.gpus();
  if (fabric) c.fabric = fabric_counts(*fabric);
  if (s.cooling) {
    CoolingCounts k;
    k.cdus = (c.racks + s.cooling->racks_per_loop - 1) / s.cooling->racks_per_loop;
    k.pumps = k.cdus * s.cooling->pumps;
    k.valves = c.racks;
    c.cooling = k;
  }
  if (s.storage) {
    double gb = 0;
    for (const auto& t : s.storage->tiers) {
      if (t.kind == storage::TierKind::RACK_CACHE) gb += t.capacity_gb * static_cast<double>(c.racks);
      if (t.kind == storage::TierKind::OBJECT_STORE) gb += t.capacity_gb;
    }
    c.flash_tb = static_cast<std::int64_t>(std::ceil(gb / 1000.0));
  }
  return c;
}

Bill::Bill(const CostSpec& p, const BillCounts& c) {
  add("compute", "GPUs (system price)", c.gpus, p.gpu_usd);
  add("compute", "spare parts (per rack)", c.racks, p.spare_parts_usd_per_rack);
  if (c.fabric) {
    add("fabric", "switches", c.fabric->switches, c.fabric->switch_tbps * p.switch_usd_per_tbps);
    add("fabric", "transceivers", c.fabric->transceivers, p.transceiver_usd);
    add("fabric", "optical cables", c.fabric->optical_cables, p.fiber_cable_usd);
    add("fabric", "copper cables", c.fabric->copper_cables, p.copper_cable_usd);
  }
  if (c.cooling) {
    add("cooling", "CDUs", c.cooling->cdus, p.cdu_usd);
    add("cooling", "CDU pumps", c.cooling->pumps, p.pump_usd);
    add("cooling", "rack valves", c.cooling->valves, p.valve_usd);
  }
  if (c.flash_tb) add("storage", "flash TB (rack caches, object stores)", *c.flash_tb, p.flash_usd_per_tb);
}

void Bill::add(std::string area, std::string item, std::int64_t count, double unit_usd) {
  const double total = static_cast<double>(count) * unit_usd;
  lines_.push_back(BillLine{std::move(area), std::move(item), count, unit_usd, total});
  capex_usd_ += total;
}

double Bill::area_usd(const std::string& area) const {
  double sum = 0;
  for (const auto& l : lines_)
    if (l.area == area) sum += l.total_usd;
  return sum;
}

const BillLine* Bill::line(const std::string& item) const {
  for (const auto& l : lines_)
    if (l.item == item) return &l;
  return nullptr;
}

} // namespace dcsim::cost
