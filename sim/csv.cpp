#include "sim/csv.hpp"

#include <fmt/format.h>

#include <cmath>
#include <exception>
#include <cstdio>
#include <iterator>
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

namespace {
void append_text(std::string& out, std::string_view s) {
  for (char c : s)
    if (c == ',' || c == '"' || c == '\n' || c == '\r') {
      out += csv_escape(s);
      return;
    }
  out += s;
}
void append_double(std::string& out, double d) {
  if (std::isnan(d)) return;
  if (std::isinf(d))
    out += d > 0 ? "inf" : "-inf";
  else if (d == 0.0)
    out += '0'; // no "-0"
  else
    fmt::format_to(std::back_inserter(out), "{}", d);
}
void append_value(std::string& out, const CsvValue& value) {
  if (const auto* s = std::get_if<std::string>(&value))
    append_text(out, *s);
  else if (const auto* i = std::get_if<std::int64_t>(&value))
    fmt::format_to(std::back_inserter(out), "{}", *i);
  else
    append_double(out, std::get<double>(value));
}
} // namespace

std::string csv_format(const CsvValue& value) {
  std::string out;
  append_value(out, value);
  return out;
}

CsvTable::CsvTable(const CsvSchema& schema) : schema_(&schema) {}

void CsvTable::RowWriter::separator() {
  if (fields_++ > 0) table_->body_ += ',';
}
CsvTable::RowWriter& CsvTable::RowWriter::operator<<(std::string_view text) {
  separator();
  append_text(table_->body_, text);
  return *this;
}
CsvTable::RowWriter& CsvTable::RowWriter::operator<<(double value) {
  separator();
  append_double(table_->body_, value);
  return *this;
}
CsvTable::RowWriter& CsvTable::RowWriter::operator<<(std::int64_t value) {
  separator();
  fmt::format_to(std::back_inserter(table_->body_), "{}", value);
  return *this;
}
CsvTable::RowWriter::~RowWriter() noexcept(false) {
  table_->body_ += '\n';
  ++table_->rows_;
  if (fields_ != table_->schema_->columns.size() && std::uncaught_exceptions() == 0)
    throw std::logic_error(fmt::format("{}: row has {} values, schema has {} columns", table_->schema_->name, fields_,
                                       table_->schema_->columns.size()));
}

void CsvTable::add_row(const std::vector<CsvValue>& values) {
  if (values.size() != schema_->columns.size())
    throw std::logic_error(fmt::format("{}: row has {} values, schema has {} columns", schema_->name,
                                       values.size(), schema_->columns.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) body_ += ',';
    append_value(body_, values[i]);
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

} // namespace dcsim::sim
