// The tools' text tables (tools/common/): columns line up by the columns text
// takes on a terminal, not by its bytes or code points.
#include <catch2/catch.hpp>

#include <sstream>

#include "common/terminal_text.h"
#include "common/text_table.h"

namespace hwrec::tools {
namespace {

TEST_CASE("tools: display width counts terminal columns", "[tools]") {
  CHECK(DisplayWidth("") == 0);
  CHECK(DisplayWidth("abc") == 3);
  CHECK(DisplayWidth("µs") == 2);                  // U+00B5: two bytes, one column
  CHECK(DisplayWidth("Ü") == 1);                   // precomposed
  CHECK(DisplayWidth("U\xCC\x88") == 1);           // U + combining diaeresis
  CHECK(DisplayWidth("e\xCC\x81t\xCC\x81") == 2);  // two combining acute accents
  CHECK(DisplayWidth("日本") == 4);                // East Asian wide: two columns each
  CHECK(DisplayWidth("ｈｗ") == 4);                // fullwidth forms
  CHECK(DisplayWidth("\xFF") == 1);                // not UTF-8: one column a byte
}

TEST_CASE("tools: table columns line up with multi-byte text", "[tools]") {
  Table table({"unit", "name", "n"});
  table.AddRow({"µs", "日本", "1"});
  table.AddRow({"ms", "Ü", "2"});
  table.AddRow({"s", "e\xCC\x81", "3"});
  std::ostringstream out;
  table.Print(out);
  CHECK(out.str() ==
        "unit  name  n\n"
        "----  ----  -\n"
        "µs    日本  1\n"
        "ms    Ü     2\n"
        "s     e\xCC\x81     3\n");
}

}  // namespace
}  // namespace hwrec::tools
