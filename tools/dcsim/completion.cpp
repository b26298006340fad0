#include "tools/dcsim/completion.hpp"

#include "tools/dcsim/provenance.hpp"

#include "sim/compressed_file.hpp"
#include "sim/csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dcsim::tools {

using sim::Json;

namespace {

bool read_file(const std::filesystem::path& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream out;
  out << in.rdbuf();
  bytes = out.str();
  return true;
}

} // namespace

std::string fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

std::vector<std::string> listed_output_files(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name == COMPLETE_FILE || name == RUN_FILE || name.find(".tmp-") != std::string::npos)
      continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void write_completion_marker(const std::filesystem::path& dir, Json members) {
  Json files = Json::array();
  for (const auto& name : listed_output_files(dir)) {
    std::string bytes;
    if (!read_file(dir / name, bytes))
      throw std::runtime_error(fmt::format("{}: cannot read the file", (dir / name).string()));
    files.push_back(Json{{"name", name}, {"bytes", bytes.size()}, {"fnv1a64", fnv1a64(bytes)}});
  }
  members["format"] = 1;
  members["files"] = std::move(files);
  sim::write_file_atomically(dir / COMPLETE_FILE, members.dump(1) + "\n");
}

std::string completion_problem(const std::filesystem::path& dir, const std::vector<std::string>& required) {
  std::string text;
  if (!read_file(dir / COMPLETE_FILE, text))
    return fmt::format("no {}: not the outputs of a finished run (interrupted, still running, or written by "
                       "a dcsim without completion markers: run it again)",
                       COMPLETE_FILE);
  const Json marker = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (marker.is_discarded() || !marker.is_object() || !marker.contains("files") || !marker.at("files").is_array())
    return fmt::format("{} is not a completion record", COMPLETE_FILE);
  std::vector<std::string> listed;
  for (const auto& f : marker.at("files")) {
    if (!f.is_object() || !f.contains("name") || !f.at("name").is_string())
      return fmt::format("{}: bad file entry", COMPLETE_FILE);
    const std::string name = f.at("name").get<std::string>();
    listed.push_back(name);
    std::string bytes;
    if (!read_file(dir / name, bytes)) return fmt::format("{} is missing", name);
    if (!f.contains("bytes") || f.at("bytes") != Json(bytes.size()) || !f.contains("fnv1a64") ||
        f.at("fnv1a64") != Json(fnv1a64(bytes)))
      return fmt::format("{} differs from the one recorded in {} (files of different runs mixed, or edited)",
                         name, COMPLETE_FILE);
  }
  for (const auto& name : required) // NAME, or its compressed NAME.gz / NAME.zst
    if (std::none_of(listed.begin(), listed.end(), [&](const std::string& l) { return sim::plain_name(l) == name; }))
      return fmt::format("{} lists no {}", COMPLETE_FILE, name);
  return {};
}

} // namespace dcsim::tools
