// Operations: how the cluster is run around failures — restarts, spares, repair crews, planned stops.
#pragma once

#include "models/hardware/spec.hpp"
#include "sim/json_reader.hpp"

namespace dcsim::ops {

struct OperationsSpec {
  double restart_s = 600;        ///< healthy allocation -> training again (reschedule, init, checkpoint load)
  int spare_racks = 0;           ///< nvl72: whole racks held idle as replacements
  int spare_nodes = 0;           ///< hgx: whole servers held idle as replacements
  int repair_crews = 0;          ///< concurrent repairs; 0 = unlimited
  double planned_interval_h = 0; ///< one planned interruption of every job per interval; 0 = none
  double planned_downtime_s = 0; ///< length of a planned interruption (before the restart)

  /// Spare NVLink domains for this rack kind (racks for nvl72, servers for hgx).
  int spare_domains(hardware::RackKind kind) const {
    return kind == hardware::RackKind::NVL72 ? spare_racks : spare_nodes;
  }
};

const sim::KeyTable& operations_keys();
OperationsSpec decode_operations(const sim::Node& operations, hardware::RackKind rack_kind);

} // namespace dcsim::ops
