#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dcsim::tools {

namespace {

const char* TRACE_KEY_POINTER = "/cooling/facility_water_trace_file";
const char* TRACE_HEADER = "time_h,facility_water_c";

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

bool parse_double(const std::string& text, double& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

/// Reads the facility water trace CSV named by /cooling/facility_water_trace_file, if any (relative paths
/// from the scenario file's directory). Problems are located at that key, with the file's line.
std::optional<std::vector<cooling::TracePoint>> read_facility_trace(const sim::Json& document, const std::string& file,
                                                                    sim::Problems& problems) {
  if (!document.is_object()) return std::nullopt;
  const auto block = document.find("cooling");
  if (block == document.end() || !block->is_object()) return std::nullopt;
  const auto key = block->find("facility_water_trace_file");
  if (key == block->end() || !key->is_string() || key->get<std::string>().empty()) return std::nullopt;
  const std::string name = key->get<std::string>();
  std::filesystem::path path(name);
  if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    problems.add(TRACE_KEY_POINTER, fmt::format("cannot read {}", path.string()), &*key);
    return std::nullopt;
  }
  std::vector<cooling::TracePoint> trace;
  const std::size_t before = problems.size();
  std::string line;
  int number = 0;
  bool header = false;
  double previous_time = -1;
  auto bad = [&](const std::string& message, const std::string& got) {
    problems.add_raw({TRACE_KEY_POINTER, fmt::format("{} line {}: {}", name, number, message), got});
  };
  while (std::getline(in, line)) {
    ++number;
    const std::string row = trim(line);
    if (row.empty() || row.front() == '#') continue;
    if (!header) {
      header = true;
      std::string compact;
      for (char c : row)
        if (c != ' ' && c != '\t') compact += c;
      if (compact != TRACE_HEADER) bad(fmt::format("the header must be {}", TRACE_HEADER), sim::render_value(row));
      continue;
    }
    const auto comma = row.find(',');
    if (comma == std::string::npos || row.find(',', comma + 1) != std::string::npos) {
      bad("expected two fields: time_h,facility_water_c", sim::render_value(row));
      continue;
    }
    const std::string time_text = trim(row.substr(0, comma));
    const std::string temp_text = trim(row.substr(comma + 1));
    double t = 0, c = 0;
    const bool t_ok = parse_double(time_text, t);
    const bool c_ok = parse_double(temp_text, c);
    if (!t_ok) bad("time_h must be a number", sim::render_value(time_text));
    if (!c_ok) bad("facility_water_c must be a number", sim::render_value(temp_text));
    if (!t_ok || !c_ok) continue;
    if (auto e = cooling::check_trace_time(previous_time, t); !e.empty()) bad("time_h " + e, time_text);
    if (auto e = cooling::check_trace_temp(c); !e.empty()) bad("facility_water_c " + e, temp_text);
    previous_time = t;
    trace.push_back({t, c});
  }
  if (problems.size() == before && trace.empty())
    problems.add(TRACE_KEY_POINTER, fmt::format("{} has no data rows (header {})", name, TRACE_HEADER), &*key);
  if (problems.size() != before) return std::nullopt;
  return trace;
}

} // namespace

LoadedScenario load_scenario_text(const std::string& text, const std::string& file,
                                  const std::vector<std::string>& overrides) {
  LoadedScenario out;
  sim::Problems problems;
  out.document = sim::parse_json_text(text, problems);
  if (!problems.empty()) {
    out.errors = problems.format(file);
    return out;
  }
  for (const auto& assignment : overrides) {
    const std::string error = sim::apply_override(out.document, assignment);
    if (!error.empty()) out.errors += file + ": " + error + "\n";
  }
  if (!out.errors.empty()) return out;
  out.scenario = decode_scenario(out.document, std::filesystem::path(file).stem().string(), problems);
  // Models never read files: the facility water trace CSV is read here and handed over in the spec.
  const auto trace = read_facility_trace(out.document, file, problems);
  if (out.scenario && out.scenario->cooling && trace) out.scenario->cooling->facility_trace = *trace;
  out.errors = problems.format(file);
  if (!problems.empty()) out.scenario.reset();
  return out;
}

LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    LoadedScenario out;
    out.errors = path + ": cannot read the file\n";
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return load_scenario_text(text.str(), path, overrides);
}

} // namespace dcsim::tools
