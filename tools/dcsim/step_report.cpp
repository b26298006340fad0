#include "tools/dcsim/step_report.hpp"

#include "models/workload/step_model.hpp"
#include "models/world.hpp"
#include "sim/process_pool.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <iostream>
#include <memory>
#include <optional>

namespace dcsim::tools {

namespace {

constexpr double FLOPS_PER_TFLOPS = 1e12;

std::string percent(double part, double whole) { return fmt::format("{:5.1f}%", whole > 0 ? 100 * part / whole : 0.0); }

/// The healthy step of each model job: with a fabric, from a World (its collectives played on the
/// SimGrid fabric, the job placed alone); without, from the alpha-beta network. Also says which.
struct ModelSteps {
  std::vector<std::optional<workload::StepBreakdown>> steps;
  std::vector<std::string> network;
};

ModelSteps model_steps(const Scenario& scenario) {
  ModelSteps out;
  const bool any_model = std::any_of(scenario.jobs.begin(), scenario.jobs.end(), [](const auto& j) { return j.model; });
  // With a fabric, a World plays the collectives: in a child process, as a process has one SimGrid
  // engine and the caller may report more than once.
  struct Played {
    workload::StepBreakdown step;
    long long flows = 0;
    int probes = 0;
  };
  static_assert(std::is_trivially_copyable_v<Played>);
  std::vector<Played> played(scenario.jobs.size());
  if (scenario.fabric && any_model) {
    const std::string reply = sim::run_in_child([&scenario] {
      const World world(scenario);
      std::vector<Played> steps(scenario.jobs.size());
      for (std::size_t i = 0; i < scenario.jobs.size(); ++i)
        if (const fabric::FabricCommModel* comm = world.fabric_comm(static_cast<int>(i)))
          steps[i] = {*world.healthy_step(static_cast<int>(i)), comm->flows_played(), comm->probes()};
      std::string bytes(steps.size() * sizeof(Played), '\0');
      std::memcpy(bytes.data(), steps.data(), bytes.size());
      return bytes;
    });
    if (reply.size() != played.size() * sizeof(Played)) throw std::logic_error("step report: malformed reply");
    std::memcpy(played.data(), reply.data(), reply.size());
  }
  for (std::size_t i = 0; i < scenario.jobs.size(); ++i) {
    const auto& job = scenario.jobs[i];
    if (!job.model) {
      out.steps.emplace_back();
      out.network.emplace_back();
    } else if (scenario.fabric) {
      const Played& p = played[i];
      out.steps.push_back(p.step);
      out.network.push_back(
          fmt::format("played on the fabric ({} flows in {} probe{})", p.flows, p.probes, p.probes == 1 ? "" : "s"));
    } else {
      out.steps.push_back(workload::healthy_step(*job.model, scenario.hardware, scale_out_gbps(scenario)));
      out.network.emplace_back("alpha-beta (no fabric in the scenario)");
    }
  }
  return out;
}

std::string model_job_text(const workload::JobSpec& job, const Scenario& s, const workload::StepBreakdown& b,
                           const std::string& network) {
  const auto& mj = *job.model;
  const auto& m = mj.model;
  const auto& p = mj.parallelism;
  std::string out = fmt::format(
      "job {}: {} GPUs = tp {} × pp {} × dp {} × cp {} (ep {}, virtual stages {}, zero {}), {} on {}, recompute {}\n",
      job.name, job.gpus, p.tp, p.pp, p.dp, p.cp, p.ep, p.virtual_stages, p.zero,
      hardware::precision_name(m.precision), s.hardware.gpu.model, workload::recompute_name(m.recompute));
  out += fmt::format("  {} micro-batches of {} × {} tokens per pipeline; {:.4g} tokens per step\n", b.micro_batches,
                     m.micro_batch, m.seq_len, b.tokens_per_step);
  const double st = b.step_time_s;
  out += fmt::format("  step time            {:12.4f} s   (scale-out collectives: {})\n", st, network);
  const std::pair<const char*, double> parts[] = {
      {"compute", b.compute_s},          {"pipeline bubble", b.bubble_s}, {"tp (NVLink)", b.tp_s},
      {"pp (point-to-point)", b.pp_s},   {"dp (gradients, ZeRO)", b.dp_s}, {"cp (K/V exchange)", b.cp_s},
      {"ep (all-to-all)", b.ep_s},       {"optimizer", b.optimizer_s}};
  for (const auto& [name, value] : parts)
    out += fmt::format("    {:<20} {:10.4f} s {}\n", name, value, percent(value, st));
  out += fmt::format("  model TFLOP/s per GPU    {:10.1f}   (hardware, with recomputation: {:.1f})\n",
                     b.model_tflops_per_gpu, b.hardware_tflops_per_gpu);
  out += fmt::format("  MFU                      {:10.1f}%  (HFU {:.1f}%; peak {:g} TFLOP/s {})\n", 100 * b.mfu_frac,
                     100 * b.hfu_frac, b.peak_tflops, hardware::precision_name(m.precision));
  out += fmt::format("  tokens/s                 {:10.4g}\n", b.tokens_per_s);
  out += fmt::format("  memory per GPU           {:10.1f} GB of {:g} (weights {:.1f}, gradients {:.1f}, optimizer "
                     "{:.1f}, activations {:.1f})\n",
                     b.memory.total_gb(), s.hardware.gpu.hbm_gb, b.memory.weights_gb, b.memory.gradients_gb,
                     b.memory.optimizer_gb, b.memory.activations_gb);
  return out;
}

std::string measured_job_text(const workload::JobSpec& job, const Scenario& s) {
  const double peak = s.hardware.gpu.peak_tflops * FLOPS_PER_TFLOPS;
  const double flops_per_gpu = job.model_flops_per_step / (job.step_time_s * job.gpus);
  if (!(job.step_time_s > 0))
    return fmt::format("job {}: {} GPUs, no step time (a reliability-only job: no step, no MFU)\n", job.name,
                       job.gpus);
  std::string out = fmt::format("job {}: {} GPUs, measured step (no model: no breakdown)\n", job.name, job.gpus);
  out += fmt::format("  step time            {:12.4f} s\n", job.step_time_s);
  out += fmt::format("  model TFLOP/s per GPU    {:10.1f}\n", flops_per_gpu / FLOPS_PER_TFLOPS);
  out += fmt::format("  MFU                      {:10.1f}%  (peak {:g} TFLOP/s)\n", 100 * flops_per_gpu / peak,
                     s.hardware.gpu.peak_tflops);
  return out;
}

} // namespace

std::string step_report_text(const Scenario& scenario) {
  const ModelSteps steps = model_steps(scenario);
  std::string out;
  for (std::size_t i = 0; i < scenario.jobs.size(); ++i) {
    if (i) out += "\n";
    const auto& job = scenario.jobs[i];
    out += job.model ? model_job_text(job, scenario, *steps.steps[i], steps.network[i]) : measured_job_text(job, scenario);
  }
  return out;
}

std::string step_report_json(const Scenario& scenario) {
  using Json = nlohmann::ordered_json;
  const ModelSteps steps = model_steps(scenario);
  std::string out;
  for (std::size_t i = 0; i < scenario.jobs.size(); ++i) {
    const auto& job = scenario.jobs[i];
    Json j;
    j["job"] = job.name;
    j["gpus"] = job.gpus;
    if (job.model) {
      const workload::StepBreakdown& b = *steps.steps[i];
      j["source"] = "model";
      j["scale_out_network"] = steps.network[i];
      j["step_time_s"] = b.step_time_s;
      j["compute_s"] = b.compute_s;
      j["bubble_s"] = b.bubble_s;
      j["tp_s"] = b.tp_s;
      j["pp_s"] = b.pp_s;
      j["dp_s"] = b.dp_s;
      j["cp_s"] = b.cp_s;
      j["ep_s"] = b.ep_s;
      j["optimizer_s"] = b.optimizer_s;
      j["micro_batches"] = b.micro_batches;
      j["tokens_per_step"] = b.tokens_per_step;
      j["tokens_per_s"] = b.tokens_per_s;
      j["model_flops_per_step"] = b.model_flops_per_step;
      j["hardware_flops_per_step"] = b.hardware_flops_per_step;
      j["peak_tflops"] = b.peak_tflops;
      j["tflops_per_gpu"] = b.model_tflops_per_gpu;
      j["hardware_tflops_per_gpu"] = b.hardware_tflops_per_gpu;
      j["mfu_frac"] = b.mfu_frac;
      j["hfu_frac"] = b.hfu_frac;
      j["memory_gb_per_gpu"] = b.memory.total_gb();
      j["weights_gb"] = b.memory.weights_gb;
      j["gradients_gb"] = b.memory.gradients_gb;
      j["optimizer_gb"] = b.memory.optimizer_gb;
      j["activations_gb"] = b.memory.activations_gb;
    } else {
      const double peak = scenario.hardware.gpu.peak_tflops * FLOPS_PER_TFLOPS;
      const double flops_per_gpu = job.model_flops_per_step / (job.step_time_s * job.gpus);
      j["source"] = "measured"; // without step_time_s: null step and MFU (NaN is written null)
      j["step_time_s"] = job.step_time_s > 0 ? Json(job.step_time_s) : Json(nullptr);
      j["peak_tflops"] = scenario.hardware.gpu.peak_tflops;
      j["tflops_per_gpu"] = flops_per_gpu / FLOPS_PER_TFLOPS;
      j["mfu_frac"] = flops_per_gpu / peak;
      j["memory_gb_per_gpu"] = nullptr;
    }
    out += j.dump() + "\n";
  }
  return out;
}

int step_command(const std::string& path, const std::vector<std::string>& overrides, bool json,
                 bool allow_outside_files) {
  const auto loaded = load_scenario(path, overrides, {allow_outside_files});
  if (!loaded.scenario) {
    std::cerr << loaded.errors;
    return 2;
  }
  std::cout << (json ? step_report_json(*loaded.scenario) : step_report_text(*loaded.scenario));
  return 0;
}

} // namespace dcsim::tools
