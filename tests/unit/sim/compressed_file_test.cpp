// sim/compressed_file.hpp: gzip and zstd round trips, the fixed gzip header that keeps outputs
// byte-identical, located errors on corrupt streams, and finding a file by its plain name.
#include "sim/compressed_file.hpp"
#include "sim/csv_reader.hpp"
#include "sim/temp_dir.hpp"
#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>

using namespace dcsim::sim;
namespace fs = std::filesystem;

namespace {

// CSV-like text with some entropy: 20,000 rows of a replica, a time and a pseudo-random value.
std::string sample_text() {
  std::mt19937_64 gen(7);
  std::string text = "replica,time_s,value\n";
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i % 10) + "," + std::to_string(i * 60) + "," + std::to_string(gen() % 100000) + "\n";
  return text;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

} // namespace

TEST_CASE("gzip and zstd round-trip any bytes, and compress deterministically", "[sim][compress]") {
  const std::string text = sample_text();
  for (Compression c : {Compression::GZIP, Compression::ZSTD}) {
    INFO(compression_name(c));
    const std::string z = compress(text, c);
    CHECK(z.size() < text.size() / 2); // CSV text compresses (a no-op or a store would not)
    CHECK(decompress(z, c, "t") == text);
    CHECK(compress(text, c) == z); // same bytes in, same bytes out
    CHECK(decompress(compress("", c), c, "t").empty());
    const std::string binary("\0\x1f\x8b\xff\n,\"", 7);
    CHECK(decompress(compress(binary, c), c, "t") == binary);
  }
  CHECK(compress(text, Compression::NONE) == text);
}

TEST_CASE("the gzip header has no name and a fixed time and OS byte (RFC 1952)", "[sim][compress]") {
  const std::string z = compress("a,b\n1,2\n", Compression::GZIP);
  REQUIRE(z.size() > 10);
  CHECK(static_cast<unsigned char>(z[0]) == 0x1f); // ID1, ID2: gzip
  CHECK(static_cast<unsigned char>(z[1]) == 0x8b);
  CHECK(z[2] == 8);                                  // CM: deflate
  CHECK(z[3] == 0);                                  // FLG: no FNAME, FCOMMENT, FEXTRA, FHCRC
  CHECK(z.substr(4, 4) == std::string(4, '\0'));     // MTIME 0: "no time stamp available"
  CHECK(static_cast<unsigned char>(z[9]) == 255);    // OS: unknown (not the building machine's)
  // The zstd frame starts with its magic number 0xFD2FB528 (little-endian).
  const std::string s = compress("a,b\n1,2\n", Compression::ZSTD);
  CHECK(s.substr(0, 4) == std::string("\x28\xb5\x2f\xfd", 4));
}

TEST_CASE("corrupt, truncated or oversized compressed streams are errors naming the file", "[sim][compress]") {
  const std::string text = sample_text();
  const std::string gz = compress(text, Compression::GZIP), zs = compress(text, Compression::ZSTD);
  CHECK_THROWS_WITH(decompress(gz.substr(0, gz.size() / 2), Compression::GZIP, "a.csv.gz"),
                    "a.csv.gz: not a valid gzip stream (truncated)");
  CHECK_THROWS_WITH(decompress(gz + "x", Compression::GZIP, "a.csv.gz"), "a.csv.gz: data after the end of the gzip stream");
  CHECK_THROWS_WITH(decompress("a,b\n1,2\n", Compression::GZIP, "a.csv.gz"),
                    "a.csv.gz: not a valid gzip stream (incorrect header check)");
  std::string flipped = gz;
  flipped[gz.size() - 6] ^= 0x55; // inside the CRC-32 trailer
  CHECK_THROWS_WITH(decompress(flipped, Compression::GZIP, "a.csv.gz"),
                    "a.csv.gz: not a valid gzip stream (incorrect data check)");
  CHECK_THROWS_WITH(decompress(zs.substr(0, zs.size() / 2), Compression::ZSTD, "a.csv.zst"),
                    "a.csv.zst: not a valid zstd stream (truncated)");
  CHECK_THROWS_WITH(decompress("a,b\n1,2\n", Compression::ZSTD, "a.csv.zst"),
                    "a.csv.zst: not a valid zstd stream (Unknown frame descriptor)");
  flipped = zs;
  flipped[zs.size() - 2] ^= 0x55; // inside the content checksum
  CHECK_THROWS_WITH(decompress(flipped, Compression::ZSTD, "a.csv.zst"),
                    "a.csv.zst: not a valid zstd stream (Restored data doesn't match checksum)");
  for (auto [c, z] : {std::pair{Compression::GZIP, gz}, std::pair{Compression::ZSTD, zs}})
    CHECK_THROWS_WITH(decompress(z, c, "big", 1000), "big: decompresses to more than 1000 bytes");
}

TEST_CASE("names: --compress values, suffixes, plain names", "[sim][compress]") {
  CHECK(parse_compression("gzip") == Compression::GZIP);
  CHECK(parse_compression("zstd") == Compression::ZSTD);
  CHECK(parse_compression("none") == Compression::NONE);
  CHECK_FALSE(parse_compression("gz").has_value());
  CHECK_FALSE(parse_compression("GZIP").has_value());
  CHECK(compression_suffix(Compression::GZIP) == ".gz");
  CHECK(compression_suffix(Compression::ZSTD) == ".zst");
  CHECK(compression_of("out/summary.csv.zst") == Compression::ZSTD);
  CHECK(compression_of("out/summary.csv") == Compression::NONE);
  CHECK(plain_name("summary.csv.gz") == "summary.csv");
  CHECK(plain_name("summary.csv.zst") == "summary.csv");
  CHECK(plain_name("scenario.json") == "scenario.json");
}

TEST_CASE("a file is found and read by its plain name in any of its forms; two forms are an error", "[sim][compress]") {
  const fs::path dir = dcsim::test::fresh_test_dir("compressed-file");
  const std::string text = "a,b\n1,2\n";
  CHECK_FALSE(find_variant(dir / "t.csv").has_value());
  CHECK_FALSE(any_variant(dir / "t.csv"));
  write_bytes(dir / "t.csv.zst", compress(text, Compression::ZSTD));
  CHECK(find_variant(dir / "t.csv") == dir / "t.csv.zst");
  CHECK(read_maybe_compressed(dir / "t.csv") == text);
  const CsvDocument doc = read_csv_file(dir / "t.csv");
  CHECK(doc.header == std::vector<std::string>{"a", "b"});
  write_bytes(dir / "t.csv.gz", compress(text, Compression::GZIP));
  CHECK_THROWS_WITH(read_csv_file(dir / "t.csv"), (dir / "t.csv").string() +
                                                      ": both t.csv.gz and t.csv.zst exist: which one to read "
                                                      "cannot be told (remove one)");
  remove_variants(dir / "t.csv", Compression::GZIP);
  CHECK(find_variant(dir / "t.csv") == dir / "t.csv.gz");
  write_bytes(dir / "t.csv.gz", "not gzip");
  CHECK_THROWS_WITH(read_csv_file(dir / "t.csv"),
                    (dir / "t.csv.gz").string() + ": not a valid gzip stream (incorrect header check)");
  remove_variants(dir / "t.csv");
  CHECK_FALSE(any_variant(dir / "t.csv"));
}
