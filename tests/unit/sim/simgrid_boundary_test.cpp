// SimGrid stays behind sim/: no source outside sim/ (and its own tests) includes a SimGrid header or
// names a SimGrid type (docs/architecture.md, Layers).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

TEST_CASE("no SimGrid header or type outside sim/", "[unit][layers]") {
  const fs::path root(DCSIM_SOURCE_DIR);
  std::vector<std::string> offenders;
  int scanned = 0;
  for (const char* area : {"models", "tools", "tests"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / area)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      if (rel.rfind("tests/unit/sim/", 0) == 0) continue; // sim/'s own tests
      std::ifstream in(e.path());
      std::ostringstream text;
      text << in.rdbuf();
      const std::string s = text.str();
      ++scanned;
      for (const char* word : {"<simgrid/", "<xbt/", "simgrid::", "s4u::"})
        if (s.find(word) != std::string::npos) offenders.push_back(rel + ": " + word);
    }
  }
  CHECK(scanned > 100);
  std::string listed;
  for (const auto& o : offenders)
    listed += "\n  " + o;
  INFO("SimGrid outside sim/:" << listed);
  CHECK(offenders.empty());
}
