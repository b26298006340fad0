// The facility's cooling plant: the CDU loops, their pumps, valves and branches (cooling/coolant_loop.hpp),
// the facility water supply temperature (cooling/supply_profile.hpp plus excursions), and each rack's
// thermal state at design load (cooling/rack_thermal.hpp). One of the parts Facility (models/facility.hpp)
// wires; engine-free (it schedules the supply profile's steps on a sim::EventQueue).
//
// Owns: the loops' hydraulic state, the supply temperature T_s, the racks' thermal solutions, the set of
// throttled racks (f_r < 1) and the count of active leaks per branch. It does not own whether a rack is
// powered: the facility decides shutdowns from thermal(r).cannot_cool after each re-solve (the `resolved`
// hook).
//
// Equations: each rack is solved at its *design load* (every usable GPU busy, in-rack spares idle, base on)
// with its branch's open flow Q_r (L/min) and the supply temperature
//   T_s(t) = profile(t) + excursions·facility_excursion_k        (°C)
// giving its throttle clock f_r and whether it can be cooled at all (cooling/rack_thermal.hpp: T_gpu =
// T_s + ΔT_coolant(P_rack, Q_r) + R_th·P_gpu, f_r the highest clock with T_gpu ≤ the throttle temperature).
// f_r depends only on the cooling state, never on which job runs where, so jobs starting and stopping cost
// no thermal work. A rack is re-solved only when its flow, its valve or T_s changes; racks with the same
// flow share one solution. Sources: the scenario's /cooling keys (docs/scenario-reference.md) and
// docs/cooling.md.
#pragma once

#include "models/cooling/coolant_loop.hpp"
#include "models/cooling/rack_thermal.hpp"
#include "models/cooling/spec.hpp"
#include "models/cooling/supply_profile.hpp"
#include "models/hardware/gpu_power.hpp"
#include "models/hardware/layout.hpp"
#include "sim/event_log.hpp"
#include "sim/event_queue.hpp"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace dcsim::facility {

class CoolingPlant {
public:
  /// Called after racks were re-solved, with the cause of the shutdowns the change makes (a mode index,
  /// or the facility's thermal cause).
  using Resolved = std::function<void(const std::vector<int>& racks, int cause)>;

  CoolingPlant(const cooling::CoolingSpec& spec, const hardware::Layout& layout, hardware::GpuPowerCurve gpu,
               double rack_base_w, sim::EventQueue& queue, sim::EventLog& log, Resolved resolved);

  /// Settles temperatures at t = 0 (an event, after the jobs start) and then follows the supply profile;
  /// `cause` names the shutdowns the profile alone makes.
  void start(int cause);

  // Faults and repairs of the elements (each re-solves what it changes).
  void leak(int rack, int delta) { leaks_[static_cast<std::size_t>(rack)] += delta; }
  void valve(int rack, bool failed, int cause);
  void pump(int loop, int pump, bool failed, int cause);
  void cdu(int loop, bool failed, int cause);
  void excursion(int delta, int cause); ///< a facility water excursion begins (+1) or passes (−1)
  void close_branch(int rack) { loops_.close_branch(rack); }
  void open_branch(int rack) { loops_.open_branch(rack); }

  // Readings.
  const cooling::CoolantLoops& loops() const { return loops_; }
  const cooling::CoolingSpec& spec() const { return *spec_; }
  double supply_c() const { return supply_c_; }
  const std::set<int>& throttled() const { return throttled_; }
  const cooling::RackThermal& thermal(int rack) const { return thermal_[static_cast<std::size_t>(rack)]; }
  int leaks(int rack) const { return leaks_[static_cast<std::size_t>(rack)]; }

  // Names and groups of racks.
  std::vector<int> loop_racks(int loop) const;
  /// The rack, or its loop's racks when the scenario isolates whole loops.
  std::vector<int> unit_racks(int rack) const;
  /// "rack0003", a loop's name when `racks` is a whole loop, or "rack0001..rack0004".
  std::string racks_name(const std::vector<int>& racks) const;

private:
  const cooling::CoolingSpec* spec_;
  const hardware::Layout* layout_;
  hardware::GpuPowerCurve gpu_;
  double base_w_;
  sim::EventQueue* queue_;
  sim::EventLog* log_;
  Resolved resolved_;
  cooling::CoolantLoops loops_;
  cooling::SupplyProfile profile_;
  int profile_cause_ = 0;

  std::vector<cooling::RackThermal> thermal_; ///< at design load
  std::set<int> throttled_;                   ///< racks with f_r < 1
  std::vector<int> leaks_;                    ///< active leaks on the branch (gauge)
  std::vector<int> loop_throttled_;           ///< throttled racks per loop (events)
  int excursions_ = 0;
  double supply_c_ = 0;

  cooling::RackLoad design_load() const;
  void update_supply(bool force, int cause); ///< force: re-solve and schedule the profile's next step
  void resolve(const std::vector<int>& racks, int cause);
};

} // namespace dcsim::facility
