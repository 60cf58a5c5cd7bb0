// docs/ROUTER.md cannot drift from the code: every ```console block in it is
// re-run (commands after "$ ", in a scratch directory, with the files its
// ```json file=NAME blocks define) and its output compared with the text.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

struct Example {
  std::string command;   // without the "$ "
  std::string expected;  // stdout then stderr, as printed
  int line = 0;          // in ROUTER.md
};

struct Document {
  std::vector<std::pair<std::string, std::string>> files;  // written before the commands
  std::vector<std::pair<std::size_t, Example>> steps;      // file count before each example
};

// Adds one ```console block's commands and their outputs.
void ParseConsole(const std::vector<std::string>& lines, int first_line, Document* doc) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("$ ", 0) != 0) continue;
    Example example{lines[i].substr(2), "", first_line + static_cast<int>(i)};
    for (std::size_t j = i + 1; j < lines.size() && lines[j].rfind("$ ", 0) != 0; ++j) {
      example.expected += lines[j] + "\n";
    }
    doc->steps.emplace_back(doc->files.size(), std::move(example));
  }
}

Document Parse(const std::string& markdown) {
  Document doc;
  std::istringstream in(markdown);
  std::string line, info;
  std::vector<std::string> block;
  bool inside = false;
  int number = 0, block_start = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) != 0) {
      if (inside) block.push_back(line);
      continue;
    }
    if (!inside) {
      inside = true;
      info = line.substr(3);
      block.clear();
      block_start = number + 1;
      continue;
    }
    inside = false;
    if (info == "console") ParseConsole(block, block_start, &doc);
    const auto file = info.find("file=");
    if (file != std::string::npos) {
      std::string text;
      for (const std::string& l : block) text += l + "\n";
      doc.files.emplace_back(info.substr(file + 5), text);
    }
  }
  return doc;
}

}  // namespace

TEST_CASE("router: every ROUTER.md example matches what the CLI prints", "[router][docs]") {
  const Document doc = Parse(hwrec::test::ReadFile(hwrec::test::SourcePath("docs/ROUTER.md")));
  REQUIRE(doc.steps.size() >= 8);
  hwrec::test::TempDir dir;
  std::size_t written = 0;
  for (const auto& [files_before, example] : doc.steps) {
    for (; written < files_before; ++written) {
      hwrec::test::WriteFile(dir.File(doc.files[written].first), doc.files[written].second);
    }
    INFO(fmt::format("docs/ROUTER.md line {}: $ {}", example.line, example.command));
    REQUIRE(example.command.rfind("hwrec ", 0) == 0);
    const auto r = hwrec::test::RunShell(
        fmt::format("cd {} && {} {}", hwrec::test::ShellQuote(dir.path().string()),
                    hwrec::test::ShellQuote(HWREC_CLI_PATH), example.command.substr(6)));
    CHECK(r.out + r.err == example.expected);
  }
}
