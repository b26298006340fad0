// CSV tables with declared schemas, and files that appear only when complete.
//
// Each output file declares its columns once (a `CsvSchema`); rows are checked against it. Numbers are
// written in the shortest form that reads back to the same double (fmt's default), NaN as an empty
// field, so files are compact, exact and byte-identical for identical runs. Text fields are quoted only
// when they contain a comma, quote or newline (RFC 4180).
#pragma once

#include "sim/temp_dir.hpp" // write_file_atomically

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dcsim::sim {

struct CsvSchema {
  std::string name;                 ///< file name, e.g. "summary.csv"
  std::vector<std::string> columns; ///< header, in order
};

using CsvValue = std::variant<std::string, double, std::int64_t>;

std::string csv_escape(std::string_view text);
std::string csv_format(const CsvValue& value);

/// Rows of one schema, kept as text in memory.
class CsvTable {
public:
  /// Appends one row field by field (no intermediate values): `table.row() << a << b << c;` The row
  /// is checked against the schema's column count when the writer goes out of scope.
  class RowWriter {
  public:
    explicit RowWriter(CsvTable& table) : table_(&table) {}
    RowWriter(const RowWriter&) = delete;
    RowWriter& operator=(const RowWriter&) = delete;
    ~RowWriter() noexcept(false);
    RowWriter& operator<<(std::string_view text);
    RowWriter& operator<<(const std::string& text) { return *this << std::string_view(text); }
    RowWriter& operator<<(const char* text) { return *this << std::string_view(text); }
    RowWriter& operator<<(double value);
    RowWriter& operator<<(std::int64_t value);
    RowWriter& operator<<(int value) { return *this << static_cast<std::int64_t>(value); }

  private:
    CsvTable* table_;
    std::size_t fields_ = 0;
    void separator();
  };

  explicit CsvTable(const CsvSchema& schema);
  const CsvSchema& schema() const { return *schema_; }
  RowWriter row() { return RowWriter(*this); }
  void add_row(const std::vector<CsvValue>& values);
  /// Appends rows already formatted for this schema (e.g. produced by another process).
  void append_formatted(std::string_view rows);
  const std::string& body() const { return body_; }
  std::string text() const; ///< header + body
  std::size_t rows() const { return rows_; }

private:
  const CsvSchema* schema_;
  std::string body_;
  std::size_t rows_ = 0;
};


} // namespace dcsim::sim
