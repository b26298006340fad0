// The GPU catalogue against its sourced table (docs/hardware.md): the code must carry exactly the
// figures the documentation sources, and the figures must be mutually consistent.
#include "models/hardware/catalogue.hpp"
#include "models/hardware/spec.hpp"

#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace dcsim::hardware;

namespace {
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream in(row);
  std::string cell;
  std::getline(in, cell, '|'); // before the first bar
  while (std::getline(in, cell, '|'))
    out.push_back(trim(cell));
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

/// "1979 [4]" -> 1979; the bracketed source tag is required.
double figure(const std::string& cell) {
  INFO("cell: " << cell);
  REQUIRE(cell.find('[') != std::string::npos);
  return std::stod(cell.substr(0, cell.find('[')));
}

/// The rows of the table between the hardware-table markers, by model name.
std::map<std::string, std::vector<std::string>> doc_rows() {
  const std::string text = dcsim::test::read_text(dcsim::test::source_path("docs/hardware.md"));
  const auto begin = text.find("<!-- hardware-table:begin -->");
  const auto end = text.find("<!-- hardware-table:end -->");
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  std::map<std::string, std::vector<std::string>> rows;
  std::stringstream in(text.substr(begin, end - begin));
  std::string line;
  int seen = 0;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) continue;
    if (seen++ < 2) continue; // header and separator
    const auto c = cells(line);
    REQUIRE(c.size() == 12);
    rows[c[0]] = c;
  }
  return rows;
}
} // namespace

TEST_CASE("hardware table: the catalogue has the figures of docs/hardware.md", "[unit][catalogue]") {
  const auto rows = doc_rows();
  REQUIRE(rows.size() == gpu_catalogue().size());
  for (const GpuKind& k : gpu_catalogue()) {
    INFO("model " << k.name);
    REQUIRE(rows.count(k.name) == 1);
    const auto& c = rows.at(k.name);
    // Rubin's FP8 is 1.2e6 / 72 = 16,666.7 in the code and 16667 in the table: 1e-4 relative.
    CHECK(k.bf16_tflops == Approx(figure(c[1])).epsilon(1e-4));
    CHECK(k.fp8_tflops == Approx(figure(c[2])).epsilon(1e-4));
    CHECK(k.fp4_tflops == Approx(figure(c[3])).epsilon(1e-4));
    CHECK(k.hbm_gb == Approx(figure(c[4])));
    CHECK(k.hbm_tb_per_s == Approx(figure(c[5])));
    CHECK(k.nvlink_gbps == Approx(figure(c[6]) * 8)); // GB/s in the table, Gb/s in the code
    CHECK(k.nic_gbps == Approx(figure(c[7])));
    CHECK(k.power_w == Approx(figure(c[8])));
    CHECK(c[9] == (k.system == SystemKind::NVL72_RACK ? "NVL72 rack" : "HGX server"));
    CHECK(k.system_gpus == std::stoi(c[10]));
    CHECK(k.system_power_kw == Approx(figure(c[11])));
    // An estimate in the table ([E..]) is listed as one in the catalogue, and the other way round.
    CHECK((c[1].find("[E") != std::string::npos) == (k.estimated.find("bf16_tflops") != std::string::npos));
    CHECK((c[8].find("[E") != std::string::npos) == (k.estimated.find("power_w") != std::string::npos));
    CHECK((c[11].find("[E") != std::string::npos) ==
          (k.estimated.find("system_power_kw") != std::string::npos));
  }
}

TEST_CASE("hardware table: figures are dense and consistent", "[unit][catalogue]") {
  for (const GpuKind& k : gpu_catalogue()) {
    INFO("model " << k.name);
    // A system's published power covers its GPUs at TDP and leaves 20-70% of it for the rest (CPUs,
    // switches, NICs, fans): a per-rack figure taken per server, or a TDP taken from the wrong part,
    // breaks this.
    const double gpus_kw = k.system_gpus * k.power_w / 1000.0;
    CHECK(k.system_base_power_kw() > 0.2 * k.system_power_kw);
    CHECK(k.system_base_power_kw() < 0.7 * k.system_power_kw);
    CHECK(gpus_kw + k.system_base_power_kw() == Approx(k.system_power_kw));
    // Dense peaks: FP8 twice BF16 where NVIDIA publishes both (a sparse figure in one column would give
    // 4x or 1x); lower precision never slower.
    if (k.estimated.find("bf16_tflops") == std::string::npos && k.fp8_tflops > 0)
      CHECK(k.fp8_tflops == Approx(2 * k.bf16_tflops).epsilon(0.01));
    if (k.fp4_tflops > 0) CHECK(k.fp4_tflops >= k.fp8_tflops);
    if (k.fp8_tflops > 0) CHECK(k.fp8_tflops >= k.bf16_tflops);
  }
}

TEST_CASE("hardware table: a precision selects its dense peak, and Rubin FP8 is the published 1.2 EFLOPS over 72",
          "[unit][catalogue]") {
  const GpuKind* rubin = find_gpu_kind("rubin");
  REQUIRE(rubin);
  GpuSpec g;
  g.peak_tflops = rubin->bf16_tflops;
  g.fp8_tflops = rubin->fp8_tflops;
  g.fp4_tflops = rubin->fp4_tflops;
  CHECK(g.peak_tflops_at(Precision::BF16) == 4000);
  CHECK(g.peak_tflops_at(Precision::FP8) == Approx(16666.67).epsilon(1e-6)); // 1.2e18 FLOP/s / 72 GPUs
  CHECK(g.peak_tflops_at(Precision::FP4) == 35000);
  // The rack: 72 x 1.8 kW of GPUs = 129.6 kW within the estimated 190 kW, 60.4 kW for the rest.
  CHECK(rubin->system_base_power_kw() == Approx(60.4));
  // Names the scenarios use stay.
  for (const char* name : {"a100-80g", "h100-sxm", "h200", "b200", "gb200", "gb300", "rubin"})
    CHECK(find_gpu_kind(name) != nullptr);
}
