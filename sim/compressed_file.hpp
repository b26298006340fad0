// Compressed output files: gzip (zlib) or zstd (libzstd), both from Debian's libraries.
//
// A file `NAME` written compressed is `NAME.gz` or `NAME.zst` (the suffix names the format; pandas,
// zcat and zstdcat read it by that suffix). Compression is deterministic: the same bytes in give the
// same bytes out with the same library version, so byte-identical outputs stay byte-identical. gzip's
// header carries no name and a fixed time (0, "no time stamp") and OS byte (255, "unknown"), as RFC 1952
// allows; zstd's frame holds no time or name at all, and is written single-threaded with its content
// size and a checksum.
//
// Readers find a file by its plain name: find_variant() returns whichever of NAME, NAME.gz, NAME.zst
// exists (two of them at once is an error: which one is meant cannot be told), and read_maybe_compressed()
// decompresses by the suffix, so a tool reads a compressed output folder as it reads a plain one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace dcsim::sim {

enum class Compression { NONE, GZIP, ZSTD };

/// "none", "gzip", "zstd".
std::string_view compression_name(Compression c);
/// Parses "none", "gzip" or "zstd"; nullopt for anything else.
std::optional<Compression> parse_compression(std::string_view text);
/// "", ".gz", ".zst".
std::string_view compression_suffix(Compression c);
/// The compression that a file name's suffix names (NONE without .gz or .zst).
Compression compression_of(const std::filesystem::path& path);
/// `name` without a .gz or .zst suffix ("summary.csv.gz" -> "summary.csv").
std::string plain_name(std::string_view name);

/// The bytes of `content` compressed (NONE: as they are). Throws std::runtime_error when the library fails.
std::string compress(std::string_view content, Compression c);
/// The bytes of a compressed file decompressed; `label` names the file in errors (a truncated or
/// corrupt stream, trailing data, more than `max_bytes` decompressed) thrown as std::runtime_error.
std::string decompress(std::string_view bytes, Compression c, std::string_view label,
                       std::size_t max_bytes = std::size_t{16} << 30);

/// The existing file among `plain`, `plain`.gz and `plain`.zst; nullopt when none exists. Throws
/// std::runtime_error naming them when more than one exists.
std::optional<std::filesystem::path> find_variant(const std::filesystem::path& plain);
/// Whether any of `plain`, `plain`.gz and `plain`.zst exists.
bool any_variant(const std::filesystem::path& plain);
/// Removes `plain`, `plain`.gz and `plain`.zst where they exist, but for the variant `keep` (the one just
/// written, so that readers find it alone).
void remove_variants(const std::filesystem::path& plain, std::optional<Compression> keep = std::nullopt);
/// Reads `path` (a plain name: the variant find_variant finds), decompressed; throws std::runtime_error
/// naming the file when none can be read or it is corrupt. `found`, when given, receives the file read.
std::string read_maybe_compressed(const std::filesystem::path& path, std::filesystem::path* found = nullptr);

} // namespace dcsim::sim
