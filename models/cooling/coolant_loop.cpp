#include "models/cooling/coolant_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace dcsim::cooling {

CoolantLoops::CoolantLoops(const CoolingSpec& spec, int racks, double rack_flow_l_per_min)
    : spec_(&spec), racks_(racks), loops_(spec.loops(racks)), design_flow_(rack_flow_l_per_min),
      pumps_up_(static_cast<std::size_t>(loops_), spec.pumps),
      pump_faults_(static_cast<std::size_t>(loops_) * static_cast<std::size_t>(spec.pumps), 0), cdu_down_(static_cast<std::size_t>(loops_), 0),
      valve_faults_(static_cast<std::size_t>(racks), 0), closed_(static_cast<std::size_t>(racks), 0) {
  if (!(rack_flow_l_per_min > 0)) throw std::logic_error("CoolantLoops: the branch design flow must be > 0");
}

int CoolantLoops::loop_racks(int loop) const {
  return std::min(spec_->racks_per_loop, racks_ - first_rack(loop));
}

std::string CoolantLoops::loop_name(int loop) const { return cooling::loop_name(loop); }

void CoolantLoops::pump_failed(int loop, int pump) {
  if (pump < 0 || pump >= spec_->pumps) throw std::logic_error("CoolantLoops: no such pump");
  if (pump_faults_[static_cast<std::size_t>(loop * spec_->pumps + pump)]++ == 0)
    --pumps_up_[static_cast<std::size_t>(loop)];
}
void CoolantLoops::pump_repaired(int loop, int pump) {
  if (pump < 0 || pump >= spec_->pumps) throw std::logic_error("CoolantLoops: no such pump");
  int& faults = pump_faults_[static_cast<std::size_t>(loop * spec_->pumps + pump)];
  if (faults == 0) throw std::logic_error("CoolantLoops: repair of a pump that did not fail");
  if (--faults == 0) ++pumps_up_[static_cast<std::size_t>(loop)];
}
void CoolantLoops::cdu_failed(int loop) {
  ++cdu_down_[static_cast<std::size_t>(loop)];
}
void CoolantLoops::cdu_repaired(int loop) {
  if (--cdu_down_[static_cast<std::size_t>(loop)] < 0)
    throw std::logic_error("CoolantLoops: CDU repaired twice");
}
void CoolantLoops::valve_failed(int rack) {
  ++valve_faults_[static_cast<std::size_t>(rack)];
}
void CoolantLoops::valve_repaired(int rack) {
  if (--valve_faults_[static_cast<std::size_t>(rack)] < 0)
    throw std::logic_error("CoolantLoops: valve repaired twice");
}
void CoolantLoops::close_branch(int rack) {
  ++closed_[static_cast<std::size_t>(rack)];
}
void CoolantLoops::open_branch(int rack) {
  if (--closed_[static_cast<std::size_t>(rack)] < 0)
    throw std::logic_error("CoolantLoops: branch opened twice");
}

double CoolantLoops::loop_flow_frac(int loop) const {
  if (!cdu_up(loop)) return 0.0;
  return std::min(1.0, pumps_up(loop) * spec_->pump_capacity_frac);
}

double CoolantLoops::open_flow_l_per_min(int rack) const {
  const double valve = valve_faulty(rack) ? spec_->valve_fault_flow_frac : 1.0;
  return design_flow_ * loop_flow_frac(loop_of(rack)) * valve;
}

double CoolantLoops::pressure_drop_kpa(int rack) const {
  const double frac = flow_l_per_min(rack) / design_flow_;
  return spec_->branch_pressure_drop_kpa * frac * frac;
}

LoopReading CoolantLoops::read(int loop, double supply_c, const std::vector<double>& rack_power_w) const {
  const Coolant& coolant = spec_->thermal.coolant;
  LoopReading out;
  out.supply_c = supply_c;
  double mass_flow = 0; // kg/s
  double mass_temp = 0; // Σ ṁ·T, kg·°C/s
  for (int r = first_rack(loop); r < first_rack(loop) + loop_racks(loop); ++r) {
    const double power = rack_power_w[static_cast<std::size_t>(r)];
    const double flow = flow_l_per_min(r);
    out.power_w += power;
    out.flow_l_per_min += flow;
    if (flow <= 0) continue;
    const double m = coolant.mass_flow_kg_per_s(flow);
    mass_flow += m;
    mass_temp += m * (supply_c + coolant.rise_k(power, flow));
  }
  out.return_c = mass_flow > 0 ? mass_temp / mass_flow : supply_c;
  out.heat_removed_w = mass_flow * coolant.cp_j_per_kg_k * (out.return_c - supply_c);
  return out;
}

} // namespace dcsim::cooling
