#include "models/cooling/coolant.hpp"

#include <array>
#include <limits>
#include <stdexcept>

namespace dcsim::cooling {

namespace {
struct Row {
  double glycol_frac;
  double cp_j_per_kg_k;
  double density_kg_per_m3;
};
// At 45 °C; see the header for the source.
constexpr std::array<Row, 6> TABLE = {{{0.00, 4180, 990.2},
                                       {0.20, 4030, 1007.6},
                                       {0.25, 3970, 1011.6},
                                       {0.30, 3920, 1015.6},
                                       {0.35, 3850, 1018.9},
                                       {0.40, 3780, 1022.2}}};
} // namespace

Coolant Coolant::propylene_glycol(double glycol_frac) {
  if (!(glycol_frac >= 0 && glycol_frac <= MAX_GLYCOL_FRAC))
    throw std::logic_error("Coolant: glycol fraction outside the property table");
  std::size_t i = 1;
  while (i + 1 < TABLE.size() && glycol_frac > TABLE[i].glycol_frac)
    ++i;
  const Row& a = TABLE[i - 1];
  const Row& b = TABLE[i];
  const double t = (glycol_frac - a.glycol_frac) / (b.glycol_frac - a.glycol_frac);
  Coolant c;
  c.glycol_frac = glycol_frac;
  c.cp_j_per_kg_k = a.cp_j_per_kg_k + t * (b.cp_j_per_kg_k - a.cp_j_per_kg_k);
  c.density_kg_per_m3 = a.density_kg_per_m3 + t * (b.density_kg_per_m3 - a.density_kg_per_m3);
  return c;
}

double Coolant::rise_k(double heat_w, double flow_l_per_min) const {
  if (heat_w <= 0) return 0;
  if (flow_l_per_min <= 0) return std::numeric_limits<double>::infinity();
  return heat_w / capacity_w_per_k(flow_l_per_min);
}

} // namespace dcsim::cooling
