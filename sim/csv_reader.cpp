#include "sim/csv_reader.hpp"

#include "sim/compressed_file.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace dcsim::sim {

std::optional<std::size_t> CsvDocument::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

std::size_t CsvDocument::require_column(std::string_view name, std::string_view label) const {
  if (auto c = column(name)) return *c;
  throw std::runtime_error(fmt::format("{}: no column \"{}\"", label, name));
}

CsvDocument parse_csv(std::string_view text, std::string_view label) {
  CsvDocument doc;
  std::vector<std::string> row;
  std::string field;
  std::size_t line = 1;
  std::size_t row_line = 1;
  bool quoted = false;
  bool field_started = false;
  auto end_row = [&] {
    row.push_back(std::move(field));
    field.clear();
    const bool blank = row.size() == 1 && row[0].empty();
    if (!blank && doc.header.empty()) {
      doc.header = std::move(row);
    } else if (!blank) {
      if (row.size() != doc.header.size())
        throw std::runtime_error(fmt::format("{}: line {}: {} fields, the header has {}", label, row_line,
                                             row.size(), doc.header.size()));
      doc.rows.push_back(std::move(row));
    }
    row.clear();
    field_started = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      field_started = false;
    } else if (c == '\n') {
      end_row();
      ++line;
      row_line = line;
    } else if (c != '\r') { // CRLF tolerated
      field += c;
      field_started = true;
    }
  }
  if (quoted)
    throw std::runtime_error(fmt::format("{}: line {}: unterminated quoted field", label, row_line));
  if (!field.empty() || !row.empty()) end_row();
  if (doc.header.empty()) throw std::runtime_error(fmt::format("{}: empty file (no header line)", label));
  return doc;
}

CsvDocument read_csv_file(const std::filesystem::path& path) {
  std::filesystem::path found;
  const std::string text = read_maybe_compressed(path, &found);
  return parse_csv(text, found.string());
}

double csv_number(std::string_view field) {
  if (field.empty() || field == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (field == "inf") return std::numeric_limits<double>::infinity();
  if (field == "-inf") return -std::numeric_limits<double>::infinity();
  double v = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || ptr != field.data() + field.size())
    throw std::runtime_error(fmt::format("not a number: \"{}\"", field));
  return v;
}

} // namespace dcsim::sim
