#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace dcsim::tools {

namespace {

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

/// A finite number (from_chars reads "inf", "infinity" and "nan": none is a time or a value).
bool parse_double(const std::string& text, double& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

/// A two-column trace file named by a scenario key: header `time_h,<value>`, then one point per line
/// (blank lines and # comments skipped). Checks come from the model's spec, so the file and the inline
/// form say the same things.
struct TraceFormat {
  std::string value;                                         ///< second column's name
  std::function<std::string(double previous, double t)> check_time;
  std::function<std::string(double v)> check_value;
};

/// A cell of a trace file, quoted in a message only when short printable ASCII (else nothing is quoted).
std::string cell_excerpt(std::string_view cell) {
  constexpr std::size_t LIMIT = 40;
  if (cell.size() > LIMIT) return {};
  for (char c : cell)
    if (c < 0x20 || c >= 0x7F) return {};
  return sim::render_value(sim::Json(std::string(cell)));
}

/// True when `target` lies inside the folder `folder` (both absolute and canonical).
bool is_inside(const std::filesystem::path& folder, const std::filesystem::path& target) {
  if (folder.empty() || !folder.is_absolute() || !target.is_absolute()) return false;
  auto f = folder.begin(), t = target.begin();
  for (; f != folder.end(); ++f, ++t) {
    if (f->empty()) continue; // a trailing separator
    if (t == target.end() || *f != *t) return false;
  }
  return t != target.end();
}

/// Walks a CSV text line by line (`number` is the current line): blank lines and # comments are skipped,
/// the first other line must be `header_text` (spaces ignored; else `bad_header()`), and `on_row(row)`
/// gets each later line, trimmed.
void for_each_csv_row(const std::string& text, const std::string& header_text, int& number,
                      const std::function<void()>& bad_header, const std::function<void(const std::string&)>& on_row) {
  bool header = false;
  for (std::size_t start = 0; start < text.size();) {
    auto stop = text.find('\n', start);
    if (stop == std::string::npos) stop = text.size();
    const std::string row = trim(std::string_view(text).substr(start, stop - start));
    start = stop + 1;
    ++number;
    if (row.empty() || row.front() == '#') continue;
    if (!header) {
      header = true;
      std::string compact;
      for (char c : row)
        if (c != ' ' && c != '\t') compact += c;
      if (compact != header_text) bad_header();
      continue;
    }
    on_row(row);
  }
}

/// The text of the file named by the string `key` at `pointer` (relative paths from the scenario file's
/// directory, inside its folder unless allowed); nullopt with a problem at that key when it cannot be read.
std::optional<std::string> read_named_file(const sim::Json& key, const std::string& pointer, const std::string& file,
                                           const LoadOptions& options, sim::Problems& problems) {
  const std::string& name = key.get_ref<const std::string&>();
  const std::string shown = sim::excerpt(name, 40);
  std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (folder.empty()) folder = "."; // absolute("") is "", inside which everything would lie
  std::filesystem::path path(name);
  if (path.is_relative()) path = folder / path;
  std::error_code ec;
  if (!options.allow_outside_files) {
    const auto base = std::filesystem::weakly_canonical(std::filesystem::absolute(folder, ec), ec);
    const auto target = ec ? std::filesystem::path() : std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    if (ec || !is_inside(base, target)) {
      problems.add(pointer,
                   "must name a file inside the scenario's folder (links followed; --allow-outside-files lifts this)",
                   &key);
      return std::nullopt;
    }
  }
  std::string text;
  if (const std::string why = read_regular_file(path, MAX_INPUT_BYTES, text); !why.empty()) {
    problems.add(pointer, fmt::format("cannot read {}: {}", shown, why), &key);
    return std::nullopt;
  }
  return text;
}

/// Reads the trace file named by the string `key` at `pointer` (read_named_file). Problems are located at
/// that key, with the file's line; no line of the file is quoted.
std::optional<std::vector<std::pair<double, double>>> read_trace_file(const sim::Json& key, const std::string& pointer,
                                                                      const std::string& file, const TraceFormat& format,
                                                                      const LoadOptions& options,
                                                                      sim::Problems& problems) {
  if (!key.is_string() || key.get<std::string>().empty()) return std::nullopt;
  const std::string header_text = "time_h," + format.value;
  const std::string shown = sim::excerpt(key.get_ref<const std::string&>(), 40);
  const std::optional<std::string> read = read_named_file(key, pointer, file, options, problems);
  if (!read) return std::nullopt;
  const std::string& text = *read;
  std::vector<std::pair<double, double>> trace;
  const std::size_t before = problems.size();
  int number = 0;
  double previous_time = -1;
  auto bad = [&](const std::string& message, const std::string& got) {
    problems.add_raw({pointer, fmt::format("{} line {}: {}", shown, number, message), got});
  };
  for_each_csv_row(text, header_text, number, [&] { bad(fmt::format("the header must be {}", header_text), {}); },
                   [&](const std::string& row) {
                     const auto comma = row.find(',');
                     if (comma == std::string::npos || row.find(',', comma + 1) != std::string::npos) {
                       bad("expected two fields: " + header_text, {});
                       return;
                     }
                     const std::string time_text = trim(row.substr(0, comma));
                     const std::string value_text = trim(row.substr(comma + 1));
                     double t = 0, v = 0;
                     const bool t_ok = parse_double(time_text, t);
                     const bool v_ok = parse_double(value_text, v);
                     if (!t_ok) bad("time_h must be a finite number", cell_excerpt(time_text));
                     if (!v_ok) bad(format.value + " must be a finite number", cell_excerpt(value_text));
                     if (!t_ok || !v_ok) return;
                     if (auto e = format.check_time(previous_time, t); !e.empty())
                       bad("time_h " + e, sim::excerpt(time_text, 40));
                     if (auto e = format.check_value(v); !e.empty())
                       bad(format.value + " " + e, sim::excerpt(value_text, 40));
                     previous_time = t;
                     trace.emplace_back(t, v);
                   });
  if (problems.size() == before && trace.empty())
    problems.add(pointer, fmt::format("{} has no data rows (header {})", shown, header_text), &key);
  if (problems.size() != before) return std::nullopt;
  return trace;
}

/// One row of a job trace file: the three cells as numbers (gpus kept as JSON: an integer is checked by the model).
std::optional<sim::Json> job_trace_row(const std::string& row, const std::function<void(const std::string&)>& bad) {
  std::vector<std::string> cells;
  for (std::size_t start = 0;;) {
    const auto comma = row.find(',', start);
    cells.push_back(trim(std::string_view(row).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (cells.size() != 3) {
    bad("expected three fields: arrival_h,gpus,work_h");
    return std::nullopt;
  }
  double arrival = 0, work = 0;
  long long gpus = 0;
  const auto [ptr, ec] = std::from_chars(cells[1].data(), cells[1].data() + cells[1].size(), gpus);
  const bool gpus_ok = ec == std::errc() && ptr == cells[1].data() + cells[1].size();
  if (!parse_double(cells[0], arrival)) bad("arrival_h must be a finite number");
  if (!gpus_ok) bad("gpus must be an integer");
  if (!parse_double(cells[2], work)) bad("work_h must be a finite number");
  if (!gpus_ok || !std::isfinite(arrival) || !std::isfinite(work)) return std::nullopt;
  return sim::Json::array({arrival, gpus, work});
}

/// /job_stream/trace_file read into /job_stream/trace (rows [arrival_h, gpus, work_h]; the model checks
/// their values), so the document that is decoded, swept and written as resolved carries the rows.
void inline_job_trace(sim::Json& document, const std::string& file, const LoadOptions& options, sim::Problems& problems) {
  if (!document.is_object() || !document.contains("job_stream") || !document["job_stream"].is_object()) return;
  sim::Json& stream = document["job_stream"];
  const auto key = stream.find("trace_file");
  if (key == stream.end() || !key->is_string() || stream.contains("trace")) return; // the model reports these
  const std::string pointer = "/job_stream/trace_file";
  const std::string shown = sim::excerpt(key->get<std::string>(), 40);
  const std::optional<std::string> text = read_named_file(*key, pointer, file, options, problems);
  if (!text) return;
  sim::Json rows = sim::Json::array();
  const std::size_t before = problems.size();
  int number = 0;
  auto bad = [&](const std::string& message) {
    problems.add_raw({pointer, fmt::format("{} line {}: {}", shown, number, message), {}});
  };
  for_each_csv_row(
      *text, "arrival_h,gpus,work_h", number, [&] { bad("the header must be arrival_h,gpus,work_h"); },
      [&](const std::string& row) {
        if (auto cells = job_trace_row(row, bad)) rows.push_back(std::move(*cells));
      });
  if (problems.size() == before && rows.empty())
    problems.add(pointer, fmt::format("{} has no data rows (header arrival_h,gpus,work_h)", shown), &*key);
  if (problems.size() != before) return;
  stream.erase("trace_file");
  stream["trace"] = std::move(rows);
}

/// Models never read files: the trace CSVs a scenario names are read here and handed over in the specs.
void read_trace_files(const sim::Json& document, const std::string& file, const LoadOptions& options,
                      Scenario& scenario, sim::Problems& problems) {
  if (!document.is_object()) return;
  if (const auto block = document.find("cooling"); block != document.end() && block->is_object() && scenario.cooling)
    if (const auto key = block->find("facility_water_trace_file"); key != block->end()) {
      const TraceFormat water{"facility_water_c", cooling::check_trace_time, cooling::check_trace_temp};
      if (const auto trace = read_trace_file(*key, "/cooling/facility_water_trace_file", file, water, options, problems)) {
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
      if (auto trace = read_trace_file(*key, fmt::format("/jobs/{}/demand_trace_file", i), file, demand, options,
                                       problems))
        scenario.jobs[i].demand_trace = std::move(*trace);
  }
}

} // namespace

std::string read_regular_file(const std::filesystem::path& path, std::size_t max_bytes, std::string& out) {
  out.clear();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. fstat on the open file, not
  // stat on the name: nothing can swap the file between the check and the read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::strerror(errno);
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0)
    why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    why = fmt::format("larger than {} MiB", max_bytes >> 20);
  char buffer[65536];
  while (why.empty()) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) why = std::strerror(errno);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) why = fmt::format("larger than {} MiB", max_bytes >> 20); // grew while read
  }
  ::close(fd);
  if (!why.empty()) out.clear();
  return why;
}

std::optional<Scenario> decode_document(const sim::Json& document, const std::string& file,
                                       const LoadOptions& options, sim::Problems& problems) {
  std::optional<Scenario> scenario = decode_scenario(document, std::filesystem::path(file).stem().string(), problems);
  if (scenario) read_trace_files(document, file, options, *scenario, problems);
  if (!problems.empty()) scenario.reset();
  return scenario;
}

LoadedScenario load_scenario_text(const std::string& text, const std::string& file,
                                  const std::vector<std::string>& overrides, const LoadOptions& options) {
  LoadedScenario out;
  sim::Problems problems;
  // The boundary: whatever the JSON library throws on hostile input is an input error, never a crash.
  try {
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
    inline_job_trace(out.document, file, options, problems);
    if (problems.empty()) out.scenario = decode_document(out.document, file, options, problems);
  } catch (const sim::Json::exception& e) {
    problems.add("", "cannot read the document: " + sim::excerpt(e.what(), 160));
  }
  out.errors += problems.format(file);
  if (!out.errors.empty()) out.scenario.reset();
  return out;
}

LoadedScenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                             const LoadOptions& options) {
  std::string text;
  if (const std::string why = read_regular_file(path, MAX_INPUT_BYTES, text); !why.empty()) {
    LoadedScenario out;
    out.errors = fmt::format("{}: cannot read the file: {}\n", path, why);
    return out;
  }
  return load_scenario_text(text, path, overrides, options);
}

} // namespace dcsim::tools
