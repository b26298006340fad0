// Coolant of the secondary (technology cooling system) loop: water with a propylene-glycol fraction.
//
// Heat carried by a coolant stream (steady state, no phase change):
//   Q = ṁ · c_p · ΔT            W = kg/s · J/(kg·K) · K
//   ṁ = ρ · V̇ = ρ · flow_l_per_min / 1000 / 60        kg/s   (flow in L/min, ρ in kg/m³)
// so a branch carrying Q watts at flow V̇ warms by ΔT = Q / (ρ · V̇ · c_p).
//
// Properties at 45 °C (the Rubin supply temperature, CONTEXT.md §2) of inhibited propylene glycol in
// water, by volume fraction x, from the glycol design tables of a chiller manual that reproduces the
// ASHRAE Handbook—Fundamentals data (ch. 31, propylene glycol; Airedale DeltaChill manual, "Glycol design
// data": freezing points 20% −7.1 °C, 30% −12.7 °C, 40% −21.1 °C are ASHRAE's volume-percent figures):
//     x      0      0.20    0.25    0.30    0.35    0.40
//     c_p  4180    4030    3970    3920    3850    3780     J/(kg·K)
//     ρ   990.2  1007.6  1011.6  1015.6  1018.9  1022.2     kg/m³
// linearly interpolated in x. Between 40 and 55 °C, c_p changes by < 1% and ρ by < 0.7%: the loop's
// properties are taken at 45 °C whatever its temperatures (an approximation well inside the model's
// other uncertainties). 25% propylene glycol (CONTEXT.md §2): c_p = 3970 J/(kg·K), ρ = 1011.6 kg/m³.
#pragma once

namespace dcsim::cooling {

/// The largest glycol fraction the property table covers.
inline constexpr double MAX_GLYCOL_FRAC = 0.40;
inline constexpr double LITERS_PER_M3 = 1000.0;
inline constexpr double S_PER_MIN = 60.0;

struct Coolant {
  double glycol_frac = 0.25;         ///< propylene glycol, volume fraction
  double cp_j_per_kg_k = 3970;       ///< specific heat
  double density_kg_per_m3 = 1011.6; ///< density

  /// Water with `glycol_frac` propylene glycol (0 ≤ x ≤ MAX_GLYCOL_FRAC), properties at 45 °C.
  static Coolant propylene_glycol(double glycol_frac);

  /// Mass flow of a volume flow, kg/s.
  double mass_flow_kg_per_s(double flow_l_per_min) const {
    return density_kg_per_m3 * flow_l_per_min / LITERS_PER_M3 / S_PER_MIN;
  }
  /// Heat capacity rate ṁ·c_p of a volume flow, W/K.
  double capacity_w_per_k(double flow_l_per_min) const {
    return mass_flow_kg_per_s(flow_l_per_min) * cp_j_per_kg_k;
  }
  /// Temperature rise of a stream carrying `heat_w` at `flow_l_per_min`, K (infinite without flow).
  double rise_k(double heat_w, double flow_l_per_min) const;
  /// Heat carried by a stream warmed by `rise_k`, W.
  double heat_w(double flow_l_per_min, double rise_k) const {
    return capacity_w_per_k(flow_l_per_min) * rise_k;
  }
};

} // namespace dcsim::cooling
