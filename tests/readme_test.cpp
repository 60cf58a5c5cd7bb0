// README.md and docs/CLI.md cannot drift from the code: every ```console block
// of each is re-run in order, each document in a scratch directory of its own
// holding the bundled examples/pools.jsonl and examples/observations.jsonl
// (what examples/quickstart.sh ingests) and the files its ```lang file=NAME
// blocks define, and what each command prints is compared with the text. Only
// times that depend on the clock are normalised. On a mismatch the actual
// output is printed; set HWREC_UPDATE_DOCS=1 to write the actual outputs into
// the document instead.
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

// Re-runs the console examples of `relative` (a path below the source tree)
// from a fresh scratch directory, so that each document is self-contained.
void CheckDocumentExamples(const std::string& relative, std::size_t min_examples) {
  const std::string path = hwrec::test::SourcePath(relative);
  const hwrec::test::DocExamples doc = hwrec::test::ParseDocExamples(hwrec::test::ReadFile(path));
  REQUIRE(doc.steps.size() >= min_examples);
  hwrec::test::TempDir dir;
  for (const char* name : {"pools.jsonl", "observations.jsonl"}) {
    hwrec::test::WriteFile(
        dir.File(name),
        hwrec::test::ReadFile(hwrec::test::SourcePath(std::string("examples/") + name)));
  }
  const bool update = std::getenv("HWREC_UPDATE_DOCS") != nullptr;
  std::map<std::size_t, std::string> actual;
  std::size_t written = 0;
  for (std::size_t i = 0; i < doc.steps.size(); ++i) {
    const auto& [files_before, example] = doc.steps[i];
    for (; written < files_before; ++written) {
      hwrec::test::WriteFile(dir.File(doc.files[written].first), doc.files[written].second);
    }
    INFO(fmt::format("{} line {}: $ {}", relative, example.line, example.command));
    REQUIRE(example.command.rfind("hwrec ", 0) == 0);
    const auto r = hwrec::test::RunShell(
        fmt::format("cd {} && {} {}", hwrec::test::ShellQuote(dir.path().string()),
                    hwrec::test::ShellQuote(hwrec::test::CliPath()), example.command.substr(6)));
    actual[i] = r.out + r.err;
    INFO("it printed:\n" << actual[i]);
    if (!update) CHECK(WithoutClockTimes(actual[i]) == WithoutClockTimes(example.expected));
  }
  if (update) hwrec::test::WriteFile(path, hwrec::test::RewriteDocExamples(doc, actual));
}

}  // namespace

TEST_CASE("readme: every README example prints what the README shows, on the bundled example",
          "[docs]") {
  CheckDocumentExamples("README.md", 4);
}

TEST_CASE("readme: every docs/CLI.md example prints what it shows, on the bundled example",
          "[docs]") {
  CheckDocumentExamples("docs/CLI.md", 8);
}
