#include "sim/csv.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace dcsim::sim;

TEST_CASE("fields are quoted only when needed; NaN is an empty field", "[unit][csv]") {
  CHECK(csv_escape("plain") == "plain");
  CHECK(csv_escape("a,b") == "\"a,b\"");
  CHECK(csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_format(std::numeric_limits<double>::quiet_NaN()).empty());
  CHECK(csv_format(0.1) == "0.1");
  CHECK(csv_format(-0.0) == "0");
  CHECK(csv_format(std::int64_t{42}) == "42");
  CHECK(csv_format(1e300) == "1e+300");
}

TEST_CASE("rows must match the declared schema", "[unit][csv]") {
  const CsvSchema schema{"t.csv", {"a", "b"}};
  CsvTable t(schema);
  t.add_row({std::int64_t{1}, std::string("x")});
  CHECK_THROWS_AS(t.add_row({std::int64_t{1}}), std::logic_error);
  CHECK(t.text() == "a,b\n1,x\n");
  CHECK(t.rows() == 1);
  t.row() << 2 << "y,z"; // the row writer appends field by field, quoting as needed
  CHECK(t.text() == "a,b\n1,x\n2,\"y,z\"\n");
  CHECK_THROWS_AS(t.row() << 3, std::logic_error); // one field short
}

TEST_CASE("atomic writes leave no temporary file behind", "[unit][csv]") {
  const auto dir = std::filesystem::temp_directory_path() / "dcsim-csv-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / "out.csv", "a\n1\n");
  std::ifstream in(dir / "out.csv");
  std::stringstream s;
  s << in.rdbuf();
  CHECK(s.str() == "a\n1\n");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir))
    ++files;
  CHECK(files == 1);
  std::filesystem::remove_all(dir);
}
