// The CDU loops of a cluster: which racks each loop serves, the hydraulic state of pumps, CDUs, valves
// and branches, and the readings of a loop (topology sketch and flow equations in spec.hpp).
//
// State per loop: working pumps k (a pump works while no fault holds it: failure modes are independent,
// so two modes may strike the same pump, which then works again only once both are repaired; a loop
// whose pumps have all failed is simply down, φ = 0) and failed CDUs; flow fraction φ = 0 while the CDU is down, else
// min(1, k·pump_capacity_frac). State per branch: valve faults (flow fraction v = valve_fault_flow_frac
// while one is unrepaired, else 1) and closures (the branch is closed — rack isolated and drained —
// while at least one isolation holds it). Branch flow:
//   V̇_r = closed ? 0 : V̇_design · φ_loop · v_r                                   L/min
// (the CDU holds each open branch's flow under differential-pressure control, so closing one branch does
// not change its neighbours' flow; a weaker pump set lowers every branch alike — an assumption).
// A loop's readings from its racks' powers P_r (W) at supply T_sup:
//   V̇_loop   = Σ V̇_r                                                              L/min
//   T_ret,r   = T_sup + P_r / (ṁ_r·c_p)                                            °C
//   T_mix     = Σ ṁ_r·T_ret,r / Σ ṁ_r   (mixing at the return header)              °C
//   Q_removed = ṁ_loop·c_p·(T_mix − T_sup)                                         W
// Energy balance: Q_removed = Σ P_r (every watt a rack draws is carried away by its branch); a closed
// branch carries nothing and its rack must be off.
#pragma once

#include "models/cooling/spec.hpp"

#include <string>
#include <vector>

namespace dcsim::cooling {

struct LoopReading {
  double supply_c = 0;
  double return_c = 0; ///< mixed return temperature (= supply without flow)
  double flow_l_per_min = 0;
  double power_w = 0;        ///< Σ of the racks' electrical power
  double heat_removed_w = 0; ///< ṁ·c_p·(T_mix − T_sup)
};

class CoolantLoops {
public:
  /// `racks` racks, each branch designed for `rack_flow_l_per_min`.
  CoolantLoops(const CoolingSpec& spec, int racks, double rack_flow_l_per_min);

  int loops() const { return loops_; }
  int racks() const { return racks_; }
  int loop_of(int rack) const { return rack / spec_->racks_per_loop; }
  int first_rack(int loop) const { return loop * spec_->racks_per_loop; }
  int loop_racks(int loop) const;
  std::string loop_name(int loop) const;

  // Hydraulic state changes.
  /// Pump `pump` (0 .. pumps - 1) of `loop` fails; faults on one pump add up (one per failure mode).
  void pump_failed(int loop, int pump);
  void pump_repaired(int loop, int pump);
  void cdu_failed(int loop);
  void cdu_repaired(int loop);
  void valve_failed(int rack);
  void valve_repaired(int rack);
  void close_branch(int rack);
  void open_branch(int rack);

  int pumps_up(int loop) const { return pumps_up_[static_cast<std::size_t>(loop)]; }
  bool cdu_up(int loop) const { return cdu_down_[static_cast<std::size_t>(loop)] == 0; }
  bool branch_closed(int rack) const { return closed_[static_cast<std::size_t>(rack)] > 0; }
  bool valve_faulty(int rack) const { return valve_faults_[static_cast<std::size_t>(rack)] > 0; }
  /// φ: share of its design flow the loop delivers to each open branch.
  double loop_flow_frac(int loop) const;
  /// The branch's flow if it is open (whether or not it is), L/min.
  double open_flow_l_per_min(int rack) const;
  /// The branch's flow, L/min (0 when closed).
  double flow_l_per_min(int rack) const { return branch_closed(rack) ? 0.0 : open_flow_l_per_min(rack); }
  /// Pressure drop across the branch, kPa.
  double pressure_drop_kpa(int rack) const;
  double design_flow_l_per_min() const { return design_flow_; }

  /// Readings of `loop` with its racks drawing `rack_power_w[r]` W (indexed by rack over the cluster).
  LoopReading read(int loop, double supply_c, const std::vector<double>& rack_power_w) const;

private:
  const CoolingSpec* spec_;
  int racks_;
  int loops_;
  double design_flow_;
  std::vector<int> pumps_up_;
  std::vector<int> pump_faults_; ///< per pump (loop·pumps + pump): faults holding it down
  std::vector<int> cdu_down_;
  std::vector<int> valve_faults_;
  std::vector<int> closed_;
};

} // namespace dcsim::cooling
