// Reading CSV files written by sim/csv.hpp (or any RFC 4180 CSV with one header line).
//
// Fields are kept as text: a reader converts the columns it needs (`number()` reads an empty field as
// NaN, as the writer writes NaN). Malformed input throws std::runtime_error naming the file and line.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::sim {

class CsvDocument {
public:
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows; ///< every row has header.size() fields

  /// Index of a column, or nullopt.
  std::optional<std::size_t> column(std::string_view name) const;
  /// Index of a column; throws std::runtime_error naming `label` when absent.
  std::size_t require_column(std::string_view name, std::string_view label) const;
};

/// Parses CSV text; `label` names the source in error messages.
CsvDocument parse_csv(std::string_view text, std::string_view label);
/// Reads and parses a file: `path` or, when that does not exist, its compressed variant path.gz or
/// path.zst (compressed_file.hpp); throws std::runtime_error naming the file read when it cannot be read,
/// is corrupt or is malformed.
CsvDocument read_csv_file(const std::filesystem::path& path);

/// A numeric field: empty → NaN; "inf"/"-inf"/"nan" accepted; anything else that is not a number throws.
double csv_number(std::string_view field);

} // namespace dcsim::sim
