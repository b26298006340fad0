#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <optional>
#include <utility>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dcsim::tools {

namespace {

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

/// A two-column trace file named by a scenario key: header `time_h,<value>`, then one point per line
/// (blank lines and # comments skipped). Checks come from the model's spec, so the file and the inline
/// form say the same things.
struct TraceFormat {
  std::string value;                                         ///< second column's name
  std::function<std::string(double previous, double t)> check_time;
  std::function<std::string(double v)> check_value;
};

/// Reads the trace file named by the string `key` at `pointer` (relative paths from the scenario file's
/// directory). Problems are located at that key, with the file's line.
std::optional<std::vector<std::pair<double, double>>> read_trace_file(const sim::Json& key, const std::string& pointer,
                                                                      const std::string& file, const TraceFormat& format,
                                                                      sim::Problems& problems) {
  if (!key.is_string() || key.get<std::string>().empty()) return std::nullopt;
  const std::string header_text = "time_h," + format.value;
  const std::string name = key.get<std::string>();
  std::filesystem::path path(name);
  if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    problems.add(pointer, fmt::format("cannot read {}", path.string()), &key);
    return std::nullopt;
  }
  std::vector<std::pair<double, double>> trace;
  const std::size_t before = problems.size();
  std::string line;
  int number = 0;
  bool header = false;
  double previous_time = -1;
  auto bad = [&](const std::string& message, const std::string& got) {
    problems.add_raw({pointer, fmt::format("{} line {}: {}", name, number, message), got});
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
      if (compact != header_text) bad(fmt::format("the header must be {}", header_text), sim::render_value(row));
      continue;
    }
    const auto comma = row.find(',');
    if (comma == std::string::npos || row.find(',', comma + 1) != std::string::npos) {
      bad("expected two fields: " + header_text, sim::render_value(row));
      continue;
    }
    const std::string time_text = trim(row.substr(0, comma));
    const std::string value_text = trim(row.substr(comma + 1));
    double t = 0, v = 0;
    const bool t_ok = parse_double(time_text, t);
    const bool v_ok = parse_double(value_text, v);
    if (!t_ok) bad("time_h must be a number", sim::render_value(time_text));
    if (!v_ok) bad(format.value + " must be a number", sim::render_value(value_text));
    if (!t_ok || !v_ok) continue;
    if (auto e = format.check_time(previous_time, t); !e.empty()) bad("time_h " + e, time_text);
    if (auto e = format.check_value(v); !e.empty()) bad(format.value + " " + e, value_text);
    previous_time = t;
    trace.emplace_back(t, v);
  }
  if (problems.size() == before && trace.empty())
    problems.add(pointer, fmt::format("{} has no data rows (header {})", name, header_text), &key);
  if (problems.size() != before) return std::nullopt;
  return trace;
}

/// Models never read files: the trace CSVs a scenario names are read here and handed over in the specs.
void read_trace_files(const sim::Json& document, const std::string& file, Scenario& scenario, sim::Problems& problems) {
  if (!document.is_object()) return;
  if (const auto block = document.find("cooling"); block != document.end() && block->is_object() && scenario.cooling)
    if (const auto key = block->find("facility_water_trace_file"); key != block->end()) {
      const TraceFormat water{"facility_water_c", cooling::check_trace_time, cooling::check_trace_temp};
      if (const auto trace = read_trace_file(*key, "/cooling/facility_water_trace_file", file, water, problems)) {
        scenario.cooling->facility_trace.clear();
        for (const auto& [t, c] : *trace)
          scenario.cooling->facility_trace.push_back({t, c});
      }
    }
  const auto jobs = document.find("jobs");
  if (jobs == document.end() || !jobs->is_array()) return;
  const TraceFormat demand{"demand_tokens_per_s", workload::check_demand_time, workload::check_demand_value};
  for (std::size_t i = 0; i < jobs->size() && i < scenario.jobs.size(); ++i) {
    const sim::Json& job = (*jobs)[i];
    if (!job.is_object()) continue;
    if (const auto key = job.find("demand_trace_file"); key != job.end())
      if (auto trace = read_trace_file(*key, fmt::format("/jobs/{}/demand_trace_file", i), file, demand, problems))
        scenario.jobs[i].demand_trace = std::move(*trace);
  }
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
  if (out.scenario) read_trace_files(out.document, file, *out.scenario, problems);
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
