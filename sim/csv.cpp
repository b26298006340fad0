#include "sim/csv.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unistd.h>

namespace dcsim::sim {

std::string csv_escape(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_format(const CsvValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return csv_escape(*s);
  if (const auto* i = std::get_if<std::int64_t>(&value)) return fmt::format("{}", *i);
  const double d = std::get<double>(value);
  if (std::isnan(d)) return "";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0.0) return "0"; // no "-0"
  return fmt::format("{}", d);
}

CsvTable::CsvTable(const CsvSchema& schema) : schema_(&schema) {}

void CsvTable::add_row(const std::vector<CsvValue>& values) {
  if (values.size() != schema_->columns.size())
    throw std::logic_error(fmt::format("{}: row has {} values, schema has {} columns", schema_->name,
                                       values.size(), schema_->columns.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) body_ += ',';
    body_ += csv_format(values[i]);
  }
  body_ += '\n';
  ++rows_;
}

void CsvTable::append_formatted(std::string_view rows) {
  body_.append(rows);
  for (char c : rows)
    if (c == '\n') ++rows_;
}

std::string CsvTable::text() const {
  std::string out;
  for (std::size_t i = 0; i < schema_->columns.size(); ++i) {
    if (i) out += ',';
    out += schema_->columns[i];
  }
  out += '\n';
  out += body_;
  return out;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error(fmt::format("{}: cannot open for writing", tmp.string()));
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    std::filesystem::remove(tmp);
    throw std::runtime_error(fmt::format("{}: write failed", tmp.string()));
  }
  std::filesystem::rename(tmp, path);
}

} // namespace dcsim::sim
