// The priced bill of materials of a design: what it is made of (counts) times what each part costs
// (models/cost/spec.hpp). Engine-free.
//
// Counts (BillCounts, from the scenario and the fabric's ClosGraph::counts(), the same counts
// `dcsim topology` prints):
//   compute   GPUs = racks × GPUs per rack (in-rack spares and warm/cold spare racks included: they are
//             racks of the cluster), priced at gpu_usd each; spare parts: spare_parts_usd_per_rack × racks
//   fabric    switches × (radix × port_gbps ÷ 1000 Tb/s × switch_usd_per_tbps); transceivers ×
//             transceiver_usd; optical cables × fiber_cable_usd; copper cables (links − optical) ×
//             copper_cable_usd (absent without /fabric)
//   cooling   CDUs = loops = ⌈racks ÷ racks_per_loop⌉ × cdu_usd; pumps = loops × pumps × pump_usd;
//             valves = racks × valve_usd (absent without /cooling)
//   storage   flash TB = Σ rack_cache tiers' capacity_gb × racks + Σ object_store tiers' capacity_gb, ÷ 1000,
//             rounded up, × flash_usd_per_tb (absent without /storage; host_memory and local_nvme tiers are
//             the trays' own memory and drives, in gpu_usd)
// Line total = count × unit price, and capex = Σ lines: a price scaled by x scales its own line by x and
// no other.
#pragma once

#include "models/cooling/spec.hpp"
#include "models/cost/spec.hpp"
#include "models/fabric/clos_graph.hpp"
#include "models/hardware/spec.hpp"
#include "models/ops/spec.hpp"
#include "models/power/spec.hpp"
#include "models/storage/spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dcsim::cost {

/// What the cost model prices of a design: the scenario's specs it needs, by reference (the scenario sits
/// above cost: models/scenario.hpp makes one of a Scenario with cost_plant()). Absent parts are null.
struct Plant {
  const hardware::HardwareSpec& hardware;
  const hardware::ClusterSpec& cluster;
  const power::PowerSpec& power;
  const ops::OperationsSpec& operations;
  const cooling::CoolingSpec* cooling = nullptr;
  const storage::StorageSpec* storage = nullptr;
};

struct FabricCounts {
  std::int64_t switches = 0;
  double switch_tbps = 0; ///< capacity of one switch: radix × port_gbps ÷ 1000
  std::int64_t transceivers = 0;
  std::int64_t optical_cables = 0;
  std::int64_t copper_cables = 0;
};

struct CoolingCounts {
  std::int64_t cdus = 0; ///< one per loop
  std::int64_t pumps = 0;
  std::int64_t valves = 0; ///< one per rack
};

struct BillCounts {
  std::int64_t racks = 0;
  std::int64_t gpus = 0;
  std::optional<FabricCounts> fabric;
  std::optional<CoolingCounts> cooling;
  std::optional<std::int64_t> flash_tb; ///< rack caches and object stores, TB (with /storage)
};

/// The fabric's counts as ClosGraph::counts() (or sizing()) gives them.
FabricCounts fabric_counts(const fabric::FabricSizing& sizing);
/// The counts of a design; `fabric` must be the sizing of its fabric (nullptr without one).
BillCounts bill_counts(const Plant& plant, const fabric::FabricSizing* fabric);

struct BillLine {
  std::string area; ///< compute, fabric, cooling, storage
  std::string item; ///< "GPUs (system price)", "switches", ...
  std::int64_t count = 0;
  double unit_usd = 0;
  double total_usd = 0; ///< count × unit_usd
};

class Bill {
public:
  Bill(const CostSpec& prices, const BillCounts& counts);

  const std::vector<BillLine>& lines() const { return lines_; }
  double capex_usd() const { return capex_usd_; }
  double area_usd(const std::string& area) const;
  const BillLine* line(const std::string& item) const; ///< nullptr when the design has no such line

private:
  std::vector<BillLine> lines_;
  double capex_usd_ = 0;
  void add(std::string area, std::string item, std::int64_t count, double unit_usd);
};

} // namespace dcsim::cost
