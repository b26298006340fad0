#include "sim/compressed_file.hpp"

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace dcsim::sim {

namespace {

constexpr int GZIP_LEVEL = 6; // zlib's default: gzip -6
constexpr int ZSTD_LEVEL = 3; // zstd's default: zstd -3
constexpr int GZIP_WINDOW_BITS = 15 + 16; // 32 KiB window, gzip wrapper (zlib.h: deflateInit2)
constexpr int GZIP_OS_UNKNOWN = 255;     // RFC 1952 OS byte "unknown"

std::string gzip(std::string_view in) {
  if (in.size() > std::numeric_limits<uInt>::max())
    throw std::runtime_error(fmt::format("gzip: {} bytes is more than one zlib call takes (use zstd)", in.size()));
  z_stream z{};
  if (deflateInit2(&z, GZIP_LEVEL, Z_DEFLATED, GZIP_WINDOW_BITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("gzip: deflateInit2 failed");
  gz_header header{}; // no name, no comment, no extra field; time 0: "no time stamp available"
  header.time = 0;
  header.os = GZIP_OS_UNKNOWN;
  deflateSetHeader(&z, &header);
  std::string out(deflateBound(&z, static_cast<uLong>(in.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  const auto written = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error(fmt::format("gzip: deflate failed ({})", rc));
  out.resize(written);
  return out;
}

std::string zstd(std::string_view in) {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  if (!ctx) throw std::runtime_error("zstd: cannot create a context");
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, 1);
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const std::size_t n = ZSTD_compress2(ctx, out.data(), out.size(), in.data(), in.size());
  ZSTD_freeCCtx(ctx);
  if (ZSTD_isError(n)) throw std::runtime_error(fmt::format("zstd: {}", ZSTD_getErrorName(n)));
  out.resize(n);
  return out;
}

void grow(std::string& out, std::size_t used, std::size_t max_bytes, std::string_view label) {
  if (used >= max_bytes)
    throw std::runtime_error(fmt::format("{}: decompresses to more than {} bytes", label, max_bytes));
  out.resize(std::min(max_bytes, std::max<std::size_t>(out.size() * 2, 1 << 16)));
}

std::string gunzip(std::string_view in, std::string_view label, std::size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, GZIP_WINDOW_BITS) != Z_OK) throw std::runtime_error("gzip: inflateInit2 failed");
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.total_out == out.size()) grow(out, z.total_out, max_bytes, label);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) rc = Z_DATA_ERROR; // input ended inside the stream
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string why = z.msg ? z.msg : z.avail_in == 0 ? "truncated" : "corrupt";
      inflateEnd(&z);
      throw std::runtime_error(fmt::format("{}: not a valid gzip stream ({})", label, why));
    }
  }
  const bool trailing = z.avail_in != 0;
  out.resize(z.total_out);
  inflateEnd(&z);
  if (trailing) throw std::runtime_error(fmt::format("{}: data after the end of the gzip stream", label));
  return out;
}

std::string unzstd(std::string_view in, std::string_view label, std::size_t max_bytes) {
  ZSTD_DStream* d = ZSTD_createDStream();
  if (!d) throw std::runtime_error("zstd: cannot create a context");
  std::string out;
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  std::size_t used = 0, rc = 1;
  for (;;) { // until the input is consumed and the output buffer no longer fills (nothing held back)
    if (used == out.size()) grow(out, used, max_bytes, label);
    ZSTD_outBuffer output{out.data() + used, out.size() - used, 0};
    rc = ZSTD_decompressStream(d, &output, &input);
    used += output.pos;
    if (ZSTD_isError(rc)) {
      ZSTD_freeDStream(d);
      throw std::runtime_error(fmt::format("{}: not a valid zstd stream ({})", label, ZSTD_getErrorName(rc)));
    }
    if (input.pos == input.size && output.pos < output.size) break;
  }
  ZSTD_freeDStream(d);
  if (rc != 0 || in.empty()) throw std::runtime_error(fmt::format("{}: not a valid zstd stream (truncated)", label));
  out.resize(used);
  return out;
}

constexpr Compression ALL[] = {Compression::NONE, Compression::GZIP, Compression::ZSTD};

std::filesystem::path variant(const std::filesystem::path& plain, Compression c) {
  std::filesystem::path p = plain;
  p += std::string(compression_suffix(c));
  return p;
}

} // namespace

std::string_view compression_name(Compression c) {
  switch (c) {
  case Compression::GZIP: return "gzip";
  case Compression::ZSTD: return "zstd";
  case Compression::NONE: break;
  }
  return "none";
}

std::optional<Compression> parse_compression(std::string_view text) {
  for (Compression c : ALL)
    if (text == compression_name(c)) return c;
  return std::nullopt;
}

std::string_view compression_suffix(Compression c) {
  switch (c) {
  case Compression::GZIP: return ".gz";
  case Compression::ZSTD: return ".zst";
  case Compression::NONE: break;
  }
  return "";
}

Compression compression_of(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".gz" ? Compression::GZIP : ext == ".zst" ? Compression::ZSTD : Compression::NONE;
}

std::string plain_name(std::string_view name) {
  const std::string_view suffix = compression_suffix(compression_of(std::string(name)));
  return std::string(name.substr(0, name.size() - suffix.size()));
}

std::string compress(std::string_view content, Compression c) {
  switch (c) {
  case Compression::GZIP: return gzip(content);
  case Compression::ZSTD: return zstd(content);
  case Compression::NONE: break;
  }
  return std::string(content);
}

std::string decompress(std::string_view bytes, Compression c, std::string_view label, std::size_t max_bytes) {
  switch (c) {
  case Compression::GZIP: return gunzip(bytes, label, max_bytes);
  case Compression::ZSTD: return unzstd(bytes, label, max_bytes);
  case Compression::NONE: break;
  }
  return std::string(bytes);
}

std::optional<std::filesystem::path> find_variant(const std::filesystem::path& plain) {
  std::vector<std::filesystem::path> found;
  for (Compression c : ALL) {
    std::error_code ec;
    if (std::filesystem::exists(variant(plain, c), ec)) found.push_back(variant(plain, c));
  }
  if (found.empty()) return std::nullopt;
  if (found.size() > 1) {
    std::string names;
    for (const auto& p : found)
      names += fmt::format("{}{}", names.empty() ? "" : " and ", p.filename().string());
    throw std::runtime_error(
        fmt::format("{}: both {} exist: which one to read cannot be told (remove one)", plain.string(), names));
  }
  return found.front();
}

bool any_variant(const std::filesystem::path& plain) {
  return std::any_of(std::begin(ALL), std::end(ALL), [&](Compression c) {
    std::error_code ec;
    return std::filesystem::exists(variant(plain, c), ec);
  });
}

void remove_variants(const std::filesystem::path& plain, std::optional<Compression> keep) {
  for (Compression c : ALL) {
    std::error_code ignored;
    if (keep != c) std::filesystem::remove(variant(plain, c), ignored);
  }
}

std::string read_maybe_compressed(const std::filesystem::path& path, std::filesystem::path* found) {
  const std::filesystem::path p = find_variant(path).value_or(path);
  if (found) *found = p;
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the file", p.string()));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return decompress(bytes.str(), compression_of(p), p.string());
}

} // namespace dcsim::sim
