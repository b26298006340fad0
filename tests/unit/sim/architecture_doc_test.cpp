// docs/architecture.md keeps its file lists honest: every path it names exists (a path written
// `like/this.cpp` (new), an example a contributor would create, excepted), every file of its part tables
// exists, every part its tables list is declared in the file its row names, and every area of models/ is
// named in it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_doc() {
  std::ifstream in(fs::path(DCSIM_SOURCE_DIR) / "docs" / "architecture.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Whether `path` (from the source root) names a file or folder, as written or with a source extension.
bool exists(const std::string& path) {
  const fs::path root(DCSIM_SOURCE_DIR);
  for (const char* ext : {"", ".hpp", ".cpp", ".md"})
    if (fs::exists(root / (path + ext))) return true;
  return false;
}

} // namespace

TEST_CASE("every path docs/architecture.md names exists", "[unit][docs]") {
  const std::string doc = read_doc();
  REQUIRE(doc.size() > 1000);
  // A path of the repository, from its root; globs (*, NAME) are patterns, not files.
  const std::regex path(R"(\b((?:models|sim|tools|tests|docs)/[A-Za-z0-9_./-]*[A-Za-z0-9_/])(`? \(new\))?)");
  std::vector<std::string> missing;
  int checked = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), path); it != std::sregex_iterator(); ++it) {
    const std::string p = (*it)[1].str();
    const std::size_t end = static_cast<std::size_t>(it->position(1) + it->length(1));
    if ((*it)[2].matched || (end < doc.size() && (doc[end] == '*' || doc.compare(end, 4, "NAME") == 0))) continue;
    if (p.find("NAME") != std::string::npos) continue;
    ++checked;
    if (!exists(p)) missing.push_back(p);
  }
  // The part tables name files from models/ without the prefix (sim/'s with it): | Part | area/file | what |.
  const std::regex row(R"(\n\| [^|\n]+ \| ([a-z_]+/[a-z_]+)(?:, [a-z_/]+)* \|)");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string file = (*it)[1].str();
    const std::string p = file.rfind("sim/", 0) == 0 ? file : "models/" + file;
    ++checked;
    if (!exists(p)) missing.push_back(p);
  }
  CHECK(checked > 40);
  std::string listed;
  for (const auto& m : missing)
    listed += "\n  " + m;
  INFO("paths named in docs/architecture.md that do not exist:" << listed);
  CHECK(missing.empty());
}

TEST_CASE("docs/architecture.md names every area of models/", "[unit][docs]") {
  const std::string doc = read_doc();
  std::vector<std::string> unnamed;
  for (const auto& e : fs::directory_iterator(fs::path(DCSIM_SOURCE_DIR) / "models")) {
    if (!e.is_directory()) continue;
    const std::string area = e.path().filename().string();
    // named as a folder (`models/area/`, `area/`) or in the Layers list
    if (doc.find(area + "/") == std::string::npos && doc.find(" " + area + ",") == std::string::npos)
      unnamed.push_back(area);
  }
  std::string listed;
  for (const auto& u : unnamed)
    listed += "\n  " + u;
  INFO("models/ areas docs/architecture.md does not name:" << listed);
  CHECK(unnamed.empty());
}

TEST_CASE("every part in the tables of docs/architecture.md is declared in the file its row names", "[unit][docs]") {
  // | Part, Other | area/file (or area/) | what |: each part is a class, struct or alias of that header (or of
  // a header in that folder), so the table cannot keep a renamed or moved part.
  const std::string doc = read_doc();
  const std::regex row(R"(\n\| ([A-Z][A-Za-z, ]*?)(?: × \d+)? \| ([a-z_]+/[a-z_/]*)(?:, [a-z_/]+)* \|)");
  const fs::path root(DCSIM_SOURCE_DIR);
  std::vector<std::string> wrong;
  int checked = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string file = (*it)[2].str();
    const fs::path where = root / (file.rfind("sim/", 0) == 0 ? file : "models/" + file);
    std::string text;
    std::vector<fs::path> headers;
    if (fs::is_directory(where)) {
      for (const auto& e : fs::directory_iterator(where))
        if (e.path().extension() == ".hpp") headers.push_back(e.path());
    } else {
      headers.push_back(fs::path(where.string() + ".hpp"));
    }
    for (const auto& h : headers) {
      std::ifstream in(h);
      std::stringstream ss;
      ss << in.rdbuf();
      text += ss.str();
    }
    std::stringstream names((*it)[1].str());
    for (std::string name; std::getline(names, name, ',');) {
      name.erase(0, name.find_first_not_of(' '));
      ++checked;
      const std::regex declared("(class|struct) " + name + R"(\b[^;]|using )" + name + " =");
      if (!std::regex_search(text, declared)) wrong.push_back(name + " (" + file + ")");
    }
  }
  CHECK(checked > 20);
  std::string listed;
  for (const auto& w : wrong)
    listed += "\n  " + w;
  INFO("parts the tables of docs/architecture.md place in a file that does not declare them:" << listed);
  CHECK(wrong.empty());
}
