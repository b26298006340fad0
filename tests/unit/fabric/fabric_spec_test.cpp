// The /fabric block: defaults, exact messages for bad input, and the reference scenarios.
#include "models/fabric/clos_graph.hpp"
#include "tools/dcsim/scenario_file.hpp"
#include "tools/dcsim/topology.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace dcsim;

namespace {

/// A scenario of `racks` Rubin NVL72 racks (1.6 Tb/s NIC per GPU) with the given fabric block.
tools::LoadedScenario load(const std::string& fabric, int racks = 16) {
  const std::string text = "{ \"cluster\": { \"racks\": " + std::to_string(racks) + " }" +
                           (fabric.empty() ? std::string{} : ", \"fabric\": " + fabric) + " }";
  return tools::load_scenario_text(text, "t.json");
}

} // namespace

TEST_CASE("a scenario without a fabric has none", "[fabric][spec]") {
  const auto l = load("");
  REQUIRE(l.errors.empty());
  CHECK_FALSE(l.scenario->fabric.has_value());
}

TEST_CASE("fabric defaults follow the NIC and the switch kind", "[fabric][spec]") {
  {
    const auto l = load(R"({ "planes": 8 })");
    REQUIRE(l.errors.empty());
    const auto& f = *l.scenario->fabric;
    CHECK(f.kind == fabric::FabricKind::ROCE);
    CHECK(f.nic_ports_per_gpu == 8);
    CHECK(f.port_gbps == 200);        // rubin: 1,600 Gb/s / 8 ports
    CHECK(f.switch_radix == 512);     // 102,400 / 200
    CHECK(f.ports_per_transceiver == 4);
    CHECK(f.tiers == 2);
    CHECK(f.oversubscription == 1.0);
    CHECK(f.switch_latency_ns == 600);
    CHECK(f.reroute_s == 1.0);
    CHECK(f.routing_efficiency_frac == 0.95);
  }
  {
    const auto l = load(R"({ "kind": "ib", "planes": 2 })");
    REQUIRE(l.errors.empty());
    const auto& f = *l.scenario->fabric;
    CHECK(f.port_gbps == 800);
    CHECK(f.switch_radix == 144);
    CHECK(f.ports_per_transceiver == 1);
    CHECK(f.switch_latency_ns == 130);
    CHECK(f.reroute_s == 0.004);
  }
}

TEST_CASE("bad fabric keys are reported with exact located messages", "[fabric][spec][bad_input]") {
  CHECK(load(R"({ "oversubscription": 0.5 })").errors == "t.json: /fabric/oversubscription: must be >= 1 (got 0.5)\n");
  CHECK(load(R"({ "kind": "ethernet" })").errors ==
        "t.json: /fabric/kind: must be one of \"roce\" or \"ib\" (got \"ethernet\")\n");
  CHECK(load(R"({ "tiers": 4 })").errors == "t.json: /fabric/tiers: must be in [1, 3] (got 4)\n");
  CHECK(load(R"({ "plane": 8 })").errors == "t.json: /fabric/plane: unknown key; did you mean \"planes\"? (got 8)\n");
  CHECK(load(R"({ "planes": 2, "nic_ports_per_gpu": 3 })").errors ==
        "t.json: /fabric/nic_ports_per_gpu: must be a multiple of planes (2): every plane gets the same number "
        "of ports of each GPU (got 3)\n");
  CHECK(load(R"({ "tiers": 1, "oversubscription": 2 })").errors ==
        "t.json: /fabric/oversubscription: applies only to fabrics of 2 or 3 tiers (tiers is 1) (got 2)\n");
  CHECK(load(R"({ "routing_efficiency_frac": 0 })").errors ==
        "t.json: /fabric/routing_efficiency_frac: must be in (0, 1] (got 0)\n");
  CHECK(load(R"({ "gpu_link_media": "fiber" })").errors ==
        "t.json: /fabric/gpu_link_media: must be one of \"copper\" or \"optics\" (got \"fiber\")\n");
}

TEST_CASE("more port bandwidth than the GPU's NIC is an error", "[fabric][spec][bad_input]") {
  CHECK(load(R"({ "planes": 8, "port_gbps": 400 })").errors ==
        "t.json: /fabric/port_gbps: gives each GPU 8 x 400 = 3200 Gb/s of ports, more than its scale-out NIC "
        "(/hardware/gpu/nic_gbps = 1600): lower port_gbps or nic_ports_per_gpu (got 400)\n");
}

TEST_CASE("impossible designs are errors that state the maximum and the key to change", "[fabric][spec][bad_input]") {
  // 1,820 racks (131,040 GPUs) on Quantum-X800 in two tiers: 144^2/2 = 10,368 per plane.
  CHECK(load(R"({ "kind": "ib", "planes": 2, "tiers": 2 })", 1820).errors ==
        "t.json: /fabric/tiers: 2 tiers of radix-144 switches attach at most 10368 GPUs per plane, but the cluster "
        "has 131040: set tiers to 3 (up to 746496 GPUs) or switch_radix to at least 512 (got 2)\n");
  // Three tiers of a small radix: the radix is the key to change.
  CHECK(load(R"({ "planes": 1, "port_gbps": 400, "tiers": 3, "switch_radix": 16 })").errors ==
        "t.json: /fabric/switch_radix: 3 tiers of radix-16 switches attach at most 1024 GPUs per plane, but the "
        "cluster has 1152: set switch_radix to at least 18 (got 16)\n");
  // One switch per plane.
  CHECK(load(R"({ "planes": 8, "tiers": 1 })").errors ==
        "t.json: /fabric/tiers: 1 tier of radix-512 switches attach at most 512 GPUs per plane, but the cluster has "
        "1152: set tiers to 2 (up to 131072 GPUs) or switch_radix to at least 1152 (got 1)\n");
}

TEST_CASE("every fabric problem is reported at once", "[fabric][spec][bad_input]") {
  const auto l = load(R"({ "planes": 0, "oversubscription": -1, "link_latency_us": "fast" })");
  CHECK(l.errors == "t.json: /fabric/planes: must be in [1, 64] (got 0)\n"
                    "t.json: /fabric/oversubscription: must be >= 1 (got -1)\n"
                    "t.json: /fabric/link_latency_us: must be a number (got \"fast\")\n");
}

TEST_CASE("the reference scenarios validate and size as designed", "[fabric][spec][scenario]") {
  struct Expect {
    const char* file;
    int tiers;
    long long switches;
    int diameter;
  };
  // Switches: 8 planes x (512 leaves + 256 spines); 1 plane x (4,104 + 4,160 + 4,096) at radix 128;
  // 2 planes x (1,824 + 1,872 + 1,296) at radix 144 (clos_plan.hpp derives each tier).
  for (const Expect& e : {Expect{"vr-nvl72-131k-8x200g.json", 2, 6144, 3}, Expect{"vr-nvl72-131k-1x800g.json", 3, 12360, 5},
                          Expect{"ib-x800-131k-2x800g.json", 3, 9984, 5}}) {
    const auto l = tools::load_scenario(std::string(DCSIM_SOURCE_DIR) + "/scenarios/" + e.file);
    INFO(e.file << ": " << l.errors);
    REQUIRE(l.scenario);
    const Scenario& s = *l.scenario;
    REQUIRE(s.fabric);
    const hardware::Layout layout(s.hardware, s.cluster);
    const fabric::ClosGraph g(fabric::ClosPlan(*s.fabric, layout));
    const fabric::FabricSizing z = g.sizing();
    CHECK(z.gpus == 131040);
    CHECK(z.tiers == e.tiers);
    CHECK(z.switches == e.switches);
    CHECK(z.diameter_hops == e.diameter);
    CHECK(z.full_bisection);
    CHECK(z.bisection_gbps == 65520.0 * 1600);
    // --json carries the keys the issue asks for.
    const auto j = nlohmann::json::parse(tools::sizing_json(s.name, *s.fabric, z));
    for (const char* key : {"gpus", "planes", "tiers", "switches", "links", "optics", "max_gpus", "bisection_gbps",
                            "full_bisection", "diameter_hops"})
      CHECK(j.contains(key));
  }
}
