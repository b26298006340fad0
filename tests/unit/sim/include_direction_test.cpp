// Include direction (docs/architecture.md, Layers): tools → models → sim; sim/ includes nothing of models/
// or tools/, models/ nothing of tools/; inside models/ an area includes only itself and the areas listed
// before it, in LAYERS below (the order architecture.md states); the composition (models/facility/ and
// the files at models/'s root) may include every area. A strict order has no folder cycle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// The model areas, lowest first (docs/architecture.md, Layers); the composition comes after them all.
constexpr std::array<const char*, 13> LAYERS = {"hardware", "fabric",  "cooling", "power",  "failure",
                                                "ops",      "sched",   "serving", "workload", "storage",
                                                "ledger",   "cost",    "facility"};

int rank_of(const std::string& rel) { // rel: a path under the source root
  if (rel.rfind("sim/", 0) == 0) return 0;
  if (rel.rfind("tools/", 0) == 0) return 1000;
  if (rel.rfind("models/", 0) != 0) return -1;
  const std::string rest = rel.substr(7);
  const auto slash = rest.find('/');
  if (slash == std::string::npos) return 999; // models/replica.hpp and the others at the root: composition
  const std::string area = rest.substr(0, slash);
  const auto it = std::find(LAYERS.begin(), LAYERS.end(), area);
  return it == LAYERS.end() ? -2 : 1 + static_cast<int>(it - LAYERS.begin());
}

} // namespace

TEST_CASE("includes run from higher layers to lower ones only", "[unit][layers]") {
  const fs::path root(DCSIM_SOURCE_DIR);
  const std::regex include(R"re(^\s*#\s*include\s+"((?:sim|models|tools)/[^"]+)")re");
  std::vector<std::string> offenders, unknown;
  int scanned = 0;
  for (const char* top : {"sim", "models", "tools"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      const int from = rank_of(rel);
      if (from == -2) unknown.push_back(rel);
      std::ifstream in(e.path());
      ++scanned;
      for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, include)) continue;
        const std::string to = m[1].str();
        const int dest = rank_of(to);
        if (dest == -2) unknown.push_back(to);
        const bool same_area = rel.substr(0, rel.find('/', 7)) == to.substr(0, to.find('/', 7));
        if (dest > from && !same_area) offenders.push_back(rel + " -> " + to); // no exceptions

      }
    }
  }
  CHECK(scanned > 100);
  std::string listed;
  for (const auto& o : offenders)
    listed += "\n  " + o;
  INFO("upward includes:" << listed);
  CHECK(offenders.empty());
  std::string areas;
  for (const auto& u : unknown)
    areas += "\n  " + u;
  INFO("model areas missing from LAYERS (add them, in order, and to docs/architecture.md):" << areas);
  CHECK(unknown.empty());
}

TEST_CASE("the include checker sees an upward arrow", "[unit][layers]") {
  // The ranks the checker compares: a lower area below a higher one, sim/ below models/, tools/ on top.
  CHECK(rank_of("models/hardware/layout.hpp") < rank_of("models/workload/workload.hpp"));
  CHECK(rank_of("models/facility/cooling_plant.hpp") > rank_of("models/ledger/replica_result.hpp"));
  CHECK(rank_of("sim/event_queue.hpp") < rank_of("models/hardware/layout.hpp"));
  CHECK(rank_of("tools/dcsim/main.cpp") > rank_of("models/replica.hpp"));
  CHECK(rank_of("models/nowhere/x.hpp") == -2);
  // the two arrows that ran upward until the interface moved down and cost took its Plant
  CHECK(rank_of("models/workload/comm_model.hpp") > rank_of("models/fabric/fabric_comm_model.hpp"));
  CHECK(rank_of("models/scenario.hpp") > rank_of("models/cost/bill.cpp"));
}
