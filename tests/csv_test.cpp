#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/csv.h"

using hwrec::internal::CsvReader;
using hwrec::internal::CsvRecord;

namespace {

std::vector<CsvRecord> ReadAll(const std::string& text) {
  CsvReader reader(text);
  std::vector<CsvRecord> records;
  CsvRecord record;
  while (reader.Next(&record)) records.push_back(record);
  return records;
}

using Fields = std::vector<std::string>;

}  // namespace

TEST_CASE("csv: plain fields split on commas, one record per line", "[csv]") {
  const auto records = ReadAll("a,b,c\n1,,3\n");
  REQUIRE(records.size() == 2);
  CHECK(records[0].fields == Fields{"a", "b", "c"});
  CHECK(records[1].fields == Fields{"1", "", "3"});
  CHECK(records[1].line == 2);
  CHECK(records[1].error.empty());
}

TEST_CASE("csv: quoted fields hold commas, doubled quotes and line breaks", "[csv]") {
  const auto records = ReadAll("\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\nnext,row\n");
  REQUIRE(records.size() == 2);
  CHECK(records[0].fields == Fields{"x,y", "say \"hi\"", "two\nlines"});
  CHECK(records[1].fields == Fields{"next", "row"});
  CHECK(records[1].line == 3);  // the record after a quoted line break starts on line 3
}

TEST_CASE("csv: CRLF line ends and a byte order mark are read as plain text ends", "[csv]") {
  const auto records = ReadAll(
      "\xEF\xBB\xBF"
      "a,b\r\nc,d\r\n");
  REQUIRE(records.size() == 2);
  CHECK(records[0].fields == Fields{"a", "b"});
  CHECK(records[1].fields == Fields{"c", "d"});
  CHECK(records[1].line == 2);
}

TEST_CASE("csv: a last line without a line end is a record", "[csv]") {
  const auto records = ReadAll("a,b\nc,d");
  REQUIRE(records.size() == 2);
  CHECK(records[1].fields == Fields{"c", "d"});
}

TEST_CASE("csv: malformed quoting is an error on its record, and reading goes on", "[csv]") {
  const auto records = ReadAll("\"a\"b,c\nok,1\n\"never closed\n");
  REQUIRE(records.size() == 3);
  CHECK(records[0].error == "has text after a closing quote: quote the whole field");
  CHECK(records[1].fields == Fields{"ok", "1"});
  CHECK(records[1].line == 2);
  CHECK(records[2].error == "has a quote that is never closed: close it with \"");
  CHECK(records[2].line == 3);
}
