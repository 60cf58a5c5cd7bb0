// docs/ROUTER.md cannot drift from the code: every ```console block in it is
// re-run (commands after "$ ", in a scratch directory, with the files its
// ```json file=NAME blocks define) and its output compared with the text.
// Set HWREC_UPDATE_DOCS=1 to write the actual outputs into ROUTER.md instead.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <string>

#include "doc_examples.h"
#include "test_support.h"

TEST_CASE("router: every ROUTER.md example matches what the CLI prints", "[router][docs]") {
  const hwrec::test::DocExamples doc = hwrec::test::ParseDocExamples(
      hwrec::test::ReadFile(hwrec::test::SourcePath("docs/ROUTER.md")));
  REQUIRE(doc.steps.size() >= 8);
  hwrec::test::TempDir dir;
  const bool update = std::getenv("HWREC_UPDATE_DOCS") != nullptr;
  std::map<std::size_t, std::string> actual;
  std::size_t written = 0;
  for (std::size_t i = 0; i < doc.steps.size(); ++i) {
    const auto& [files_before, example] = doc.steps[i];
    for (; written < files_before; ++written) {
      hwrec::test::WriteFile(dir.File(doc.files[written].first), doc.files[written].second);
    }
    INFO(fmt::format("docs/ROUTER.md line {}: $ {}", example.line, example.command));
    REQUIRE(example.command.rfind("hwrec ", 0) == 0);
    const auto r = hwrec::test::RunShell(
        fmt::format("cd {} && {} {}", hwrec::test::ShellQuote(dir.path().string()),
                    hwrec::test::ShellQuote(HWREC_CLI_PATH), example.command.substr(6)));
    actual[i] = r.out + r.err;
    if (!update) CHECK(actual[i] == example.expected);
  }
  if (update) {
    const std::string path = hwrec::test::SourcePath("docs/ROUTER.md");
    hwrec::test::WriteFile(path, hwrec::test::RewriteDocExamples(doc, actual));
  }
}
