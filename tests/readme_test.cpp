// README.md cannot drift from the code: every ```console block in it is re-run
// in order, in a scratch directory holding the bundled examples/pools.jsonl and
// examples/observations.jsonl (what examples/quickstart.sh ingests), and what
// each command prints is compared with the text. Only times that depend on the
// clock are normalised. On a mismatch the actual output is printed; set
// HWREC_UPDATE_DOCS=1 to write the actual outputs into README.md instead.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <string>

#include "doc_examples.h"
#include "test_support.h"

namespace {

// "as of:     2026-12-01T07:45:00.5Z" and "as_of": "…" hold the time a command
// ran, when no --as-of pins it.
std::string WithoutClockTimes(const std::string& text) {
  static const std::regex kAsOf(R"((as[ _]of"?:?\s*"?)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)");
  return std::regex_replace(text, kAsOf, "$1<now>");
}

}  // namespace

TEST_CASE("readme: every README example prints what the README shows, on the bundled example",
          "[docs]") {
  const std::string readme = hwrec::test::SourcePath("README.md");
  const hwrec::test::DocExamples doc = hwrec::test::ParseDocExamples(hwrec::test::ReadFile(readme));
  REQUIRE(doc.steps.size() >= 3);
  hwrec::test::TempDir dir;
  for (const char* name : {"pools.jsonl", "observations.jsonl"}) {
    hwrec::test::WriteFile(
        dir.File(name),
        hwrec::test::ReadFile(hwrec::test::SourcePath(std::string("examples/") + name)));
  }
  const bool update = std::getenv("HWREC_UPDATE_DOCS") != nullptr;
  std::map<std::size_t, std::string> actual;
  for (std::size_t i = 0; i < doc.steps.size(); ++i) {
    const hwrec::test::DocExample& example = doc.steps[i].second;
    INFO(fmt::format("README.md line {}: $ {}", example.line, example.command));
    REQUIRE(example.command.rfind("hwrec ", 0) == 0);
    const auto r = hwrec::test::RunShell(
        fmt::format("cd {} && {} {}", hwrec::test::ShellQuote(dir.path().string()),
                    hwrec::test::ShellQuote(hwrec::test::CliPath()), example.command.substr(6)));
    actual[i] = r.out + r.err;
    INFO("it printed:\n" << actual[i]);
    if (!update) CHECK(WithoutClockTimes(actual[i]) == WithoutClockTimes(example.expected));
  }
  if (update) hwrec::test::WriteFile(readme, hwrec::test::RewriteDocExamples(doc, actual));
}
