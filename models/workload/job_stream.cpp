#include "models/workload/job_stream.hpp"

#include "sim/rng.hpp"
#include "sim/units.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dcsim::workload {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

const KeyTable& job_stream_keys() {
  static const KeyTable table{
      "jobs", "/job_stream",
      "tenants' jobs arriving and leaving, from a generator or a trace, expanded into /jobs "
      "(models/workload/job_stream.hpp)",
      {
          KeyDef{"template", ValueType::OBJECT, "", nullptr,
                 "the jobs' keys (as /jobs/*, without name, gpus, arrival_h and work_h, which the stream sets)"},
          KeyDef{"name_prefix", ValueType::STRING, "", "stream", "generated jobs are named PREFIX0000, PREFIX0001..."},
          KeyDef{"seed", ValueType::INTEGER, "", nullptr, "seed of the stream's draws (stream job_stream)",
                 sim::non_negative(), {}, "the scenario's seed"},
          KeyDef{"arrivals_per_day", ValueType::NUMBER, "1/day", 0.0,
                 "generator: mean Poisson arrival rate; 0 = no generated jobs", sim::non_negative()},
          KeyDef{"start_h", ValueType::NUMBER, "h", 0.0, "generator: first possible arrival", sim::non_negative()},
          KeyDef{"end_h", ValueType::NUMBER, "h", nullptr, "generator: arrivals stop before this time",
                 sim::Bounds{0.0, sim::MAX_DURATION_H, true, false}, {}, "the scenario's duration_h"},
          KeyDef{"sizes_gpus", ValueType::ARRAY, "", Json::array(),
                 "generator: job sizes to draw from (GPUs, integers >= 1); required with arrivals_per_day > 0"},
          KeyDef{"size_weights", ValueType::ARRAY, "", nullptr,
                 "generator: relative weight of each size (numbers >= 0, one per size, not all 0)", {}, {},
                 "equal weights"},
          KeyDef{"duration_dist", ValueType::STRING, "", "exponential",
                 "generator: distribution of a job's work (hours at full size)", {},
                 {"exponential", "lognormal", "fixed"}},
          KeyDef{"duration_mean_h", ValueType::NUMBER, "h", nullptr,
                 "generator: mean work of a job; required with arrivals_per_day > 0",
                 sim::Bounds{0.0, sim::MAX_DURATION_H, true, false}, {}, "required with arrivals_per_day > 0"},
          KeyDef{"duration_sigma", ValueType::NUMBER, "", 1.0, "generator, lognormal: standard deviation of ln(work)",
                 sim::positive()},
          KeyDef{"sequences_per_gpu", ValueType::NUMBER, "sequences", nullptr,
                 "model jobs: global_batch = round(sequences_per_gpu x gpus) (weak scaling), for every job",
                 sim::positive(), {}, "none: the template's global batch for every size"},
          KeyDef{"trace", ValueType::ARRAY, "", Json::array(),
                 "jobs as [arrival_h, gpus, work_h] rows (before the generated ones)"},
          KeyDef{"trace_file", ValueType::STRING, "", nullptr,
                 "CSV file (header arrival_h,gpus,work_h), relative to the scenario file; read by dcsim as trace",
                 {}, {}, "none"},
      }};
  return table;
}

std::vector<StreamJob> generate_jobs(const StreamGenerator& g, std::uint64_t seed, int max_jobs) {
  std::vector<StreamJob> out;
  if (!(g.arrivals_per_day > 0) || g.sizes_gpus.empty()) return out;
  sim::Rng rng(seed, 0, "job_stream");
  double total_weight = 0;
  for (double w : g.size_weights)
    total_weight += w;
  const double rate_per_h = g.arrivals_per_day / 24.0;
  const double mu = std::log(g.duration_mean_h) - g.duration_sigma * g.duration_sigma / 2;
  for (double t = g.start_h + rng.exponential(rate_per_h); t < g.end_h; t += rng.exponential(rate_per_h)) {
    if (static_cast<int>(out.size()) >= max_jobs) break;
    StreamJob job;
    job.arrival_h = t;
    double pick = rng.uniform01() * total_weight;
    std::size_t i = 0;
    while (i + 1 < g.sizes_gpus.size() && (g.size_weights[i] == 0 || pick >= g.size_weights[i]))
      pick -= g.size_weights[i++];
    job.gpus = g.sizes_gpus[i];
    switch (g.duration_dist) {
    case StreamGenerator::Dist::EXPONENTIAL: job.work_h = rng.exponential(1.0 / g.duration_mean_h); break;
    case StreamGenerator::Dist::LOGNORMAL: job.work_h = rng.lognormal(mu, g.duration_sigma); break;
    case StreamGenerator::Dist::FIXED: job.work_h = g.duration_mean_h; break;
    }
    out.push_back(job);
  }
  return out;
}

namespace {

/// /job_stream/sizes_gpus and size_weights into `g`; false on problems (reported).
bool decode_sizes(const sim::Node& n, StreamGenerator& g) {
  const Json* sizes = n.raw("sizes_gpus");
  bool ok = true;
  if (sizes && sizes->is_array())
    for (std::size_t i = 0; i < sizes->size(); ++i) {
      const Json& v = (*sizes)[i];
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 1 << 24) {
        n.problems().add(n.child_pointer("sizes_gpus") + fmt::format("/{}", i), "must be an integer in [1, 16777216]", &v);
        ok = false;
      } else {
        g.sizes_gpus.push_back(v.get<int>());
      }
    }
  if (const Json* w = n.raw("size_weights"); w && w->is_array()) {
    double sum = 0;
    for (std::size_t i = 0; i < w->size(); ++i) {
      const Json& v = (*w)[i];
      if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>())) {
        n.problems().add(n.child_pointer("size_weights") + fmt::format("/{}", i), "must be a number >= 0", &v);
        ok = false;
      } else {
        g.size_weights.push_back(v.get<double>());
        sum += v.get<double>();
      }
    }
    if (ok && w->size() != g.sizes_gpus.size())
      n.problem("size_weights", fmt::format("must list one weight per size ({} sizes)", g.sizes_gpus.size())), ok = false;
    else if (ok && !(sum > 0))
      n.problem("size_weights", "must not all be 0"), ok = false;
  } else {
    g.size_weights.assign(g.sizes_gpus.size(), 1.0);
  }
  return ok;
}

/// /job_stream/trace rows; false on problems (reported).
bool decode_trace(const sim::Node& n, std::vector<StreamJob>& out) {
  const Json* trace = n.raw("trace");
  if (!trace || !trace->is_array()) return true;
  bool ok = true;
  for (std::size_t i = 0; i < trace->size(); ++i) {
    const Json& row = (*trace)[i];
    const std::string where = n.child_pointer("trace") + fmt::format("/{}", i);
    const bool shape = row.is_array() && row.size() == 3 && row[0].is_number() && row[1].is_number_integer() &&
                       row[2].is_number();
    if (!shape) {
      n.problems().add(where, "must be [arrival_h, gpus, work_h]: two numbers around an integer", &row);
      ok = false;
      continue;
    }
    StreamJob job{row[0].get<double>(), 0, row[2].get<double>()};
    const long long gpus = row[1].get<long long>();
    if (!(job.arrival_h >= 0 && job.arrival_h <= sim::MAX_DURATION_H))
      n.problems().add(where + "/0", "arrival_h must be in [0, 1e6]", &row[0]), ok = false;
    if (gpus < 1 || gpus > 1 << 24) n.problems().add(where + "/1", "gpus must be in [1, 16777216]", &row[1]), ok = false;
    if (!(job.work_h > 0 && job.work_h <= sim::MAX_DURATION_H))
      n.problems().add(where + "/2", "work_h must be in (0, 1e6]", &row[2]), ok = false;
    job.gpus = static_cast<int>(gpus);
    out.push_back(job);
  }
  return ok;
}

/// The stream's jobs; nullopt on problems (reported).
std::optional<std::vector<StreamJob>> decode_stream(const sim::Node& n, const Json& document) {
  const std::size_t before = n.problems().size();
  std::vector<StreamJob> jobs;
  decode_trace(n, jobs);
  StreamGenerator g;
  g.arrivals_per_day = n.number("arrivals_per_day");
  g.start_h = n.number("start_h");
  const Json* duration = document.is_object() && document.contains("duration_h") ? &document.at("duration_h") : nullptr;
  g.end_h = n.optional_number("end_h").value_or(duration && duration->is_number() ? duration->get<double>() : 336.0);
  const std::string dist = n.string("duration_dist");
  g.duration_dist = dist == "lognormal" ? StreamGenerator::Dist::LOGNORMAL
                    : dist == "fixed"   ? StreamGenerator::Dist::FIXED
                                        : StreamGenerator::Dist::EXPONENTIAL;
  g.duration_sigma = n.number("duration_sigma");
  decode_sizes(n, g);
  if (g.arrivals_per_day > 0) {
    if (g.sizes_gpus.empty()) n.problem("sizes_gpus", "must list at least one size with arrivals_per_day > 0");
    if (auto mean = n.optional_number("duration_mean_h"))
      g.duration_mean_h = *mean;
    else if (!n.has("duration_mean_h"))
      n.problem_here("duration_mean_h is required with arrivals_per_day > 0");
    if (!(g.end_h > g.start_h)) n.problem("end_h", fmt::format("must exceed start_h ({})", g.start_h));
  }
  if (g.duration_dist != StreamGenerator::Dist::LOGNORMAL && n.has("duration_sigma"))
    n.problem("duration_sigma", "applies only to duration_dist \"lognormal\"");
  if (n.has("trace_file") && !n.has("trace")) // dcsim reads the file into trace before decoding
    n.problem("trace_file", "was not read (only dcsim's scenario loader reads trace files)");
  if (!n.raw("template") || !n.raw("template")->is_object()) n.problem_here("template (an object of job keys) is required");
  else
    for (const char* key : {"name", "gpus", "arrival_h", "work_h"})
      if (n.raw("template")->contains(key)) n.problems().add(n.child_pointer("template") + "/" + key, "is set by the stream for each job");
  if (n.problems().size() != before) return std::nullopt;
  std::uint64_t seed = 1;
  if (const Json* s = document.is_object() && document.contains("seed") ? &document.at("seed") : nullptr; s && s->is_number_unsigned())
    seed = s->get<std::uint64_t>();
  if (auto own = n.optional_integer("seed")) seed = static_cast<std::uint64_t>(*own);
  std::vector<StreamJob> generated = generate_jobs(g, seed);
  if (jobs.size() + generated.size() > static_cast<std::size_t>(MAX_STREAM_JOBS)) {
    n.problem_here(fmt::format("expands into more than {} jobs (arrivals_per_day x window / 24 = {:.0f} expected, "
                               "plus {} trace rows)",
                               MAX_STREAM_JOBS, g.arrivals_per_day * (g.end_h - g.start_h) / 24, jobs.size()));
    return std::nullopt;
  }
  jobs.insert(jobs.end(), generated.begin(), generated.end());
  return jobs;
}

} // namespace

std::size_t first_stream_job(const Json& document) {
  const auto jobs = document.find("jobs");
  return jobs != document.end() && jobs->is_array() ? jobs->size() : 0;
}

std::optional<Json> expand_job_stream(const Json& document, sim::Problems& problems) {
  if (!document.is_object() || !document.contains("job_stream")) return document;
  const sim::Node n(document.at("job_stream"), "/job_stream", job_stream_keys(), problems);
  if (!document.at("job_stream").is_object()) return std::nullopt;
  if (document.contains("jobs") && !document.at("jobs").is_array()) return document; // decoding reports it
  const auto jobs = decode_stream(n, document);
  if (!jobs) return std::nullopt;
  Json out = document;
  out.erase("job_stream");
  Json& list = out["jobs"];
  if (!list.is_array()) list = Json::array();
  const Json& templ = document.at("job_stream").at("template");
  const std::string prefix = n.string("name_prefix");
  const auto per_gpu = n.optional_number("sequences_per_gpu");
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const StreamJob& s = (*jobs)[i];
    Json job = templ;
    job["name"] = fmt::format("{}{:04}", prefix, i);
    job["gpus"] = s.gpus;
    job["arrival_h"] = s.arrival_h;
    job["work_h"] = s.work_h;
    if (per_gpu && job.contains("model") && job["model"].is_object()) {
      job["model"].erase("global_batch_tokens");
      job["model"]["global_batch"] = std::llround(*per_gpu * s.gpus);
    }
    list.push_back(std::move(job));
  }
  return out;
}

sim::Problem stream_problem(const sim::Problem& p, std::size_t first, const Json& expanded) {
  constexpr std::string_view JOBS = "/jobs/";
  if (p.pointer.rfind(JOBS, 0) != 0) return p;
  const std::size_t end = p.pointer.find('/', JOBS.size());
  const std::string index_text = p.pointer.substr(JOBS.size(), end == std::string::npos ? std::string::npos : end - JOBS.size());
  std::size_t index = 0;
  try {
    index = std::stoul(index_text);
  } catch (...) {
    return p;
  }
  if (index < first || !expanded.contains("jobs") || index >= expanded.at("jobs").size()) return p;
  const Json& job = expanded.at("jobs").at(index);
  sim::Problem out = p;
  const std::string rest = end == std::string::npos ? std::string() : p.pointer.substr(end);
  out.pointer = rest == "/gpus" ? "/job_stream/sizes_gpus" : "/job_stream/template" + rest;
  out.message += fmt::format(" (in generated job {}, {} GPUs)", job.value("name", std::string("?")), job.value("gpus", 0));
  return out;
}

} // namespace dcsim::workload
