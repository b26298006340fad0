// Cost spec (`/cost`): the price catalogue of a design (docs/cost.md).
//
// Every price is in US dollars; every default is an ESTIMATE from public list prices or analyst
// figures, with its source below and in `dcsim describe cost`. A planner's negotiated prices differ
// (often by tens of percent): override any key. Cost outputs appear only when the scenario has a
// `/cost` block (`"cost": {}` takes every default); `dcsim cost SCENARIO` prices any scenario's bill.
//
// Sources of the defaults (retrieved 2026):
//   gpu_usd (system price per GPU: the rack's or server's price ÷ its GPUs; includes CPUs, memory,
//            NVLink switches, NICs, trays, power shelves and in-rack cooling):
//     rubin     7.8 M$ per Vera Rubin NVL72 rack (Morgan Stanley bottom-up BOM, May 2026, reported by
//               buysellram.com and faq.com.tw) ÷ 72 = 108,333 $
//     gb300     ~4.0 M$ per GB300 NVL72 rack (Morgan Stanley, as above, blogerroom.com 2026) ÷ 72 = 55,556 $
//     gb200     3.5 M$ per GB200 NVL72 rack (low end of 3.5–4 M$, Morgan Stanley as above; awesomeagents.ai
//               quotes 2–3 M$) ÷ 72 = 48,611 $
//     b200      DGX B200 list price 515,410 $ for 8 GPUs (reported by resellers, 2025) = 64,426 $
//     h200      ~5 M$ for 14 HGX servers of 8 H200 GPUs (Exa Labs cluster, bizety.com 2025) = 44,643 $
//     h100-sxm  ESTIMATE 40,000 $ (below the H200's, same servers with less memory)
//     a100-80g  DGX A100 launch list price 199,000 $ for 8 GPUs (NVIDIA, May 2020) ≈ 25,000 $
//   switch_usd_per_tbps: a 64 × 800G (51.2 Tb/s) Ethernet switch costs 150,000–250,000 $
//     (luxoptx.com, "800G optical module cost analysis", 2025): 200,000 $ ÷ 51.2 = 3,906 $ per Tb/s of
//     switching capacity; a switch is priced at radix × port_gbps ÷ 1000 × this.
//   transceiver_usd: 800G OSFP DR8 1,100–1,400 $ at volume (luxoptx.com, as above): 1,250 $.
//   fiber_cable_usd: MPO trunk cables 50–150 $ (luxoptx.com, as above): 100 $.
//   copper_cable_usd: ESTIMATE 150 $ per direct-attach copper cable (no public volume price found).
//   spare_parts_usd_per_rack: ESTIMATE 100,000 $ per rack (about two compute trays' worth of trays,
//     power supplies, optics and cables on the shelf; spare racks are racks of the cluster, priced as such).
//   cdu_usd, pump_usd, valve_usd: ESTIMATES (250,000 $ per ~1.4 MW CDU, 15,000 $ per pump, 5,000 $ per
//     rack valve assembly): no public list prices; Morgan Stanley puts a GB300 rack's in-rack cooling
//     parts near 50,000 $ (epium.com 2025), which gpu_usd already includes.
//   facility_usd_per_mw_year: 184.06 $ per kW-month, CBRE's average wholesale asking rate in North
//     American primary markets, H2 2024 (250–500 kW requirements, power billed apart) × 12 × 1000
//     = 2,208,720 $ per MW of IT capacity and year.
//   electricity_usd_per_mwh: 80.6 $: the US industrial average of 8.06 ¢/kWh in 2023 (EIA, via Statista).
//   pue: ESTIMATE 1.2 for a new liquid-cooled hall (cooling plant energy is not modelled by /power;
//     the electricity bill is IT energy × pue).
//   depreciation_years: 6: CoreWeave depreciates technology equipment (GPUs, networking, storage)
//     straight-line over six years (S-1, 2025); Nebius uses four.
//   repair_crew_usd_per_h: ESTIMATE 100 $ per crew-hour (two technicians at ~50 $ per loaded hour).
#pragma once

#include "models/hardware/spec.hpp"
#include "models/ops/spec.hpp"
#include "sim/json_reader.hpp"

#include <optional>
#include <string_view>

namespace dcsim::cost {

inline constexpr double H_PER_YEAR = 8760.0;

struct CostSpec {
  double gpu_usd = 0;                  ///< system price per GPU (rack or server price ÷ its GPUs)
  double spare_parts_usd_per_rack = 0; ///< parts on the shelf per rack
  double switch_usd_per_tbps = 0;      ///< fabric switch price per Tb/s of switching capacity
  double transceiver_usd = 0;          ///< per optical transceiver module
  double fiber_cable_usd = 0;          ///< per optical cable
  double copper_cable_usd = 0;         ///< per copper cable
  double cdu_usd = 0;                  ///< per CDU (one per cooling loop)
  double pump_usd = 0;                 ///< per CDU pump
  double valve_usd = 0;                ///< per rack valve assembly (Valvey)
  double facility_usd_per_mw_year = 0; ///< building, power and cooling plant per MW of IT capacity
  double electricity_usd_per_mwh = 0;  ///< per MWh drawn from the grid
  double pue = 1;                      ///< grid energy ÷ IT energy
  double depreciation_years = 6;       ///< straight-line life of the equipment
  double repair_crew_usd_per_h = 0;    ///< per staffed crew and hour
  int staffed_crews = 0;               ///< crews paid around the clock
};

/// Default system price per GPU of a catalogue model; nullopt for a model without one.
std::optional<double> default_gpu_usd(std::string_view model);

const sim::KeyTable& cost_keys();

/// Decodes /cost. The GPU price defaults by hardware.gpu.model; staffed crews default to
/// operations.repair_crews (0, unlimited crews, then needs staffed_crews to price crews).
CostSpec decode_cost(const sim::Node& cost, const hardware::HardwareSpec& hardware,
                     const ops::OperationsSpec& operations);

/// Every default (what `"cost": {}` gives) for a design, e.g. for `dcsim cost` on a scenario without
/// a block. nullopt when the GPU model has no default price.
std::optional<CostSpec> default_cost(const hardware::HardwareSpec& hardware,
                                     const ops::OperationsSpec& operations);

} // namespace dcsim::cost
