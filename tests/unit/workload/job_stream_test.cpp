// Job streams: the generator's determinism and distribution, trace expansion, and located messages.
#include "models/workload/job_stream.hpp"
#include "sim/temp_dir.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>

using namespace dcsim;
using workload::StreamGenerator;

namespace {

StreamGenerator sizes_64_to_8192() {
  StreamGenerator g;
  g.arrivals_per_day = 200;
  g.start_h = 0;
  g.end_h = 24 * 50; // 10,000 arrivals expected
  g.sizes_gpus = {64, 256, 1024, 8192};
  g.size_weights = {4, 3, 2, 1};
  g.duration_mean_h = 30;
  return g;
}

// 4 racks of 4 HGX servers (128 GPUs); jobs come from the stream only.
const char* SCENARIO = R"({
  "hardware": { "gpu": { "model": "a100-80g" }, "rack": { "kind": "hgx", "gpus_per_node": 8, "nodes_per_rack": 4 } },
  "cluster": { "racks": 4 },
  "duration_h": 100,
  "jobs": [ { "name": "fixed", "gpus": 8, "step_time_s": 1 } ],
  "job_stream": { "template": { "step_time_s": 2, "priority": 1 },
                  "trace": [ [0, 16, 5], [1.5, 32, 2.25] ],
                  "arrivals_per_day": 24, "sizes_gpus": [8, 64], "duration_mean_h": 10 }
})";

tools::LoadedScenario load(const std::vector<std::string>& overrides) {
  return tools::load_scenario_text(SCENARIO, "t.json", overrides);
}

} // namespace

TEST_CASE("unit: workload: a job stream is the same for a seed and another for another seed") {
  const auto g = sizes_64_to_8192();
  const auto a = workload::generate_jobs(g, 5), b = workload::generate_jobs(g, 5), c = workload::generate_jobs(g, 6);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].arrival_h == b[i].arrival_h);
    CHECK(a[i].gpus == b[i].gpus);
    CHECK(a[i].work_h == b[i].work_h);
  }
  CHECK((c.size() != a.size() || c[0].arrival_h != a[0].arrival_h));
}

TEST_CASE("unit: workload: generated arrivals, sizes and durations match their distributions' means") {
  // N ≈ 10,000 arrivals (Poisson: sd 100, 1%); tolerances are about 4 standard deviations of each mean.
  for (const auto dist : {StreamGenerator::Dist::EXPONENTIAL, StreamGenerator::Dist::LOGNORMAL}) {
    auto g = sizes_64_to_8192();
    g.duration_dist = dist;
    g.duration_sigma = 1.0;
    const auto jobs = workload::generate_jobs(g, 42);
    const double n = static_cast<double>(jobs.size());
    CHECK(n == Approx(10000).epsilon(0.04));
    double gpus = 0, work = 0;
    std::map<int, int> count;
    for (const auto& j : jobs) {
      gpus += j.gpus;
      work += j.work_h;
      ++count[j.gpus];
      CHECK(j.arrival_h < g.end_h);
    }
    // Mean size Σ w g / Σ w = (4·64 + 3·256 + 2·1024 + 8192) / 10 = 1126.4; its sd over N draws is
    // sd(size)/√N ≈ 2,400/100 = 24 (2.1%): tolerance 8%.
    CHECK(gpus / n == Approx(1126.4).epsilon(0.08));
    // Each size's frequency: p = w/10, sd √(p(1−p)/N) ≤ 0.005: within 0.02.
    CHECK(count[64] / n == Approx(0.4).margin(0.02));
    CHECK(count[8192] / n == Approx(0.1).margin(0.02));
    // Mean work 30 h: exponential sd/√N = 1%, lognormal (σ = 1) √(e − 1)/√N = 1.3%: tolerance 6%.
    CHECK(work / n == Approx(30).epsilon(0.06));
    // Inter-arrival times: mean 24/200 = 0.12 h.
    CHECK(jobs.back().arrival_h / n == Approx(0.12).epsilon(0.04));
  }
}

TEST_CASE("unit: workload: a stream's trace and generated jobs are appended to the scenario's jobs") {
  const auto loaded = load({});
  INFO(loaded.errors);
  REQUIRE(loaded.scenario);
  const auto& jobs = loaded.scenario->jobs;
  REQUIRE(jobs.size() >= 3);
  CHECK(jobs[0].name == "fixed");
  CHECK(jobs[1].name == "stream0000"); // trace rows first, in order
  CHECK(jobs[1].gpus == 16);
  CHECK(jobs[1].arrival_h == 0);
  CHECK(jobs[1].work_h == 5);
  CHECK(jobs[1].step_time_s == 2); // from the template
  CHECK(jobs[1].priority == 1);
  CHECK(jobs[2].name == "stream0001");
  CHECK(jobs[2].arrival_h == 1.5);
  CHECK(jobs[2].work_h == 2.25);
  // Generated: ~100 h × 1/h, sizes 8 or 64, arrivals before duration_h, the same on every load.
  CHECK(jobs.size() - 3 == Approx(100).margin(40));
  for (std::size_t i = 3; i < jobs.size(); ++i) {
    CHECK((jobs[i].gpus == 8 || jobs[i].gpus == 64));
    CHECK(jobs[i].arrival_h < 100);
    if (i > 3) CHECK(jobs[i].arrival_h >= jobs[i - 1].arrival_h);
  }
  const auto again = load({});
  REQUIRE(again.scenario);
  CHECK(again.scenario->jobs.back().arrival_h == jobs.back().arrival_h);
  const auto other = load({"job_stream.seed=99"});
  REQUIRE(other.scenario);
  CHECK(other.scenario->jobs.back().arrival_h != jobs.back().arrival_h);
}

TEST_CASE("unit: workload: a job stream's problems are located in the stream") {
  CHECK(load({"job_stream.template.gpus=8"}).errors == "t.json: /job_stream/template/gpus: is set by the stream for each job\n");
  CHECK(load({"job_stream.trace.0=[0, 16]"}).errors ==
        "t.json: /job_stream/trace/0: must be [arrival_h, gpus, work_h]: two numbers around an integer (got [0,16])\n");
  CHECK(load({"job_stream.size_weights=[1]"}).errors ==
        "t.json: /job_stream/size_weights: must list one weight per size (2 sizes) (got [1])\n");
  CHECK(load({"job_stream.duration_mean_h=null"}).errors.find("/job_stream/duration_mean_h") != std::string::npos);
  // A generated job's bad template key is reported once, at the template, naming the first job.
  CHECK(load({"job_stream.template.step_time_s=-1"}).errors ==
        "t.json: /job_stream/template/step_time_s: must be > 0 (in generated job stream0000, 16 GPUs) (got -1)\n");
  // A size larger than the cluster: at sizes_gpus.
  const auto big = load({"job_stream.trace.0=[0, 256, 5]"});
  CHECK(big.errors.find("t.json: /job_stream/sizes_gpus: ") == 0);
  CHECK(big.errors.find("(in generated job stream0000, 256 GPUs)") != std::string::npos);
}

TEST_CASE("unit: workload: a job stream's trace file is read into its rows, and a bad line is located") {
  const sim::TempDir dir(sim::temp_root(), "job-trace-");
  std::ofstream(dir.path() / "jobs.csv") << "# tenants\narrival_h, gpus, work_h\n0,16,5\n1.5,32,2.25\n";
  std::string doc = SCENARIO;
  const std::string inline_trace = R"("trace": [ [0, 16, 5], [1.5, 32, 2.25] ])";
  doc.replace(doc.find(inline_trace), inline_trace.size(), R"("trace_file": "jobs.csv")");
  const std::string file = (dir.path() / "s.json").string();
  const auto from_file = tools::load_scenario_text(doc, file);
  INFO(from_file.errors);
  REQUIRE(from_file.scenario);
  const auto inline_loaded = load({});
  REQUIRE(inline_loaded.scenario);
  REQUIRE(from_file.scenario->jobs.size() == inline_loaded.scenario->jobs.size());
  for (std::size_t i = 0; i < from_file.scenario->jobs.size(); ++i) {
    CHECK(from_file.scenario->jobs[i].gpus == inline_loaded.scenario->jobs[i].gpus);
    CHECK(from_file.scenario->jobs[i].arrival_h == inline_loaded.scenario->jobs[i].arrival_h);
    CHECK(from_file.scenario->jobs[i].work_h == inline_loaded.scenario->jobs[i].work_h);
  }
  CHECK(from_file.document.at("job_stream").at("trace") == sim::Json::parse("[[0.0,16,5.0],[1.5,32,2.25]]"));
  std::ofstream(dir.path() / "jobs.csv") << "arrival_h,gpus,work_h\n0,16,5\n1,3.5,2\n";
  CHECK(tools::load_scenario_text(doc, file).errors ==
        file + ": /job_stream/trace_file: jobs.csv line 3: gpus must be an integer\n");
}
