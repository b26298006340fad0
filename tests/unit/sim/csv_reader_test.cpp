#include "sim/csv.hpp"
#include "sim/csv_reader.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim::sim;

TEST_CASE("csv reader reads back what the writer writes, quotes and NaN included", "[sim][csv]") {
  const CsvSchema schema{"t.csv", {"a", "b", "c"}};
  CsvTable t(schema);
  t.add_row({std::string("x,y"), 1.5, std::int64_t{3}});
  t.add_row({std::string("say \"hi\"\nthere"), std::nan(""), std::int64_t{-1}});
  const CsvDocument d = parse_csv(t.text(), "t.csv");
  REQUIRE(d.header == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(d.rows.size() == 2);
  CHECK(d.rows[0][0] == "x,y");
  CHECK(csv_number(d.rows[0][1]) == 1.5);
  CHECK(d.rows[1][0] == "say \"hi\"\nthere");
  CHECK(std::isnan(csv_number(d.rows[1][1])));
  CHECK(*d.column("c") == 2);
  CHECK_FALSE(d.column("zz").has_value());
}

TEST_CASE("csv reader rejects rows of the wrong width and bad numbers, naming the line", "[sim][csv]") {
  CHECK_THROWS_WITH(parse_csv("a,b\n1,2\n3\n", "f.csv"), "f.csv: line 3: 1 fields, the header has 2");
  CHECK_THROWS_WITH(parse_csv("a\n\"open\n", "f.csv"), "f.csv: line 2: unterminated quoted field");
  CHECK_THROWS_WITH(parse_csv("", "f.csv"), "f.csv: empty file (no header line)");
  CHECK_THROWS_WITH(csv_number("1.5x"), "not a number: \"1.5x\"");
  CHECK(std::isinf(csv_number("-inf")));
}
