#include "models/ops/spec.hpp"

#include <fmt/format.h>

namespace dcsim::ops {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

const KeyTable& operations_keys() {
  static const KeyTable table{
      "operations", "/operations", "recovery, spares, repair crews and planned interruptions",
      {
          KeyDef{"restart_s", ValueType::NUMBER, "s", 600.0,
                 "from a healthy allocation to training again: reschedule, initialisation, checkpoint load",
                 sim::non_negative()},
          KeyDef{"spare_racks", ValueType::INTEGER, "", 0,
                 "nvl72 only: whole racks held idle to replace a job's rack", sim::non_negative()},
          KeyDef{"spare_nodes", ValueType::INTEGER, "", 0,
                 "hgx only: whole servers held idle to replace a job's server", sim::non_negative()},
          KeyDef{"repair_crews", ValueType::INTEGER, "", 0,
                 "repairs that can run at once (others queue in detection order); 0 = unlimited",
                 sim::non_negative()},
          KeyDef{"planned_interval_h", ValueType::NUMBER, "h", 0.0,
                 "every job is stopped for planned work once per interval, at a checkpoint; 0 = never",
                 sim::non_negative()},
          KeyDef{"planned_downtime_s", ValueType::NUMBER, "s", 0.0,
                 "length of a planned stop, followed by restart_s", sim::non_negative()},
      }};
  return table;
}

OperationsSpec decode_operations(const sim::Node& n, hardware::RackKind rack_kind) {
  OperationsSpec spec;
  spec.restart_s = n.number("restart_s");
  spec.spare_racks = static_cast<int>(n.integer("spare_racks"));
  spec.spare_nodes = static_cast<int>(n.integer("spare_nodes"));
  spec.repair_crews = static_cast<int>(n.integer("repair_crews"));
  spec.planned_interval_h = n.number("planned_interval_h");
  spec.planned_downtime_s = n.number("planned_downtime_s");
  if (rack_kind == hardware::RackKind::NVL72 && n.has("spare_nodes"))
    n.problem("spare_nodes", "applies only to racks of kind \"hgx\"; nvl72 designs use spare_racks");
  if (rack_kind == hardware::RackKind::HGX && n.has("spare_racks"))
    n.problem("spare_racks", "applies only to racks of kind \"nvl72\"; hgx designs use spare_nodes");
  if (n.has("planned_downtime_s") && spec.planned_interval_h == 0)
    n.problem("planned_downtime_s", "has no effect without planned_interval_h > 0");
  if (spec.planned_interval_h > 0 && spec.planned_interval_h * 3600.0 <= spec.planned_downtime_s + spec.restart_s)
    n.problem("planned_interval_h",
              fmt::format("must leave time to train: must exceed planned_downtime_s + restart_s = {} s",
                          spec.planned_downtime_s + spec.restart_s));
  return spec;
}

} // namespace dcsim::ops
