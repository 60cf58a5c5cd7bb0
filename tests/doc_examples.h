// Examples in a Markdown document, as the docs tests re-run them: every
// ```console block's commands (after "$ ") with the output printed under each
// (stdout, then stderr, then "[exit N]" when the command exits N != 0),
// and the ```lang file=NAME blocks that define files the commands read.
// Rewrite() puts actual outputs in place of the printed ones, so that a
// deliberate change regenerates the document.
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace hwrec::test {

struct DocExample {
  std::string command;    // without the "$ "
  std::string expected;   // stdout, stderr and "[exit N]" when not 0, as printed
  int line = 0;           // of the command, 1-based
  std::size_t first = 0;  // output lines [first, last) of the document, 0-based
  std::size_t last = 0;
};

struct DocExamples {
  std::vector<std::string> lines;                          // the whole document
  std::vector<std::pair<std::string, std::string>> files;  // written before the commands
  std::vector<std::pair<std::size_t, DocExample>> steps;   // file count before each example
};

namespace doc_examples_detail {

// Adds one ```console block's commands and their outputs; `first` is the
// document index of the block's first line.
inline void ParseConsole(const std::vector<std::string>& lines, std::size_t first,
                         DocExamples* doc) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("$ ", 0) != 0) continue;
    DocExample example{lines[i].substr(2), "", static_cast<int>(first + i + 1), first + i + 1,
                       first + i + 1};
    for (std::size_t j = i + 1; j < lines.size() && lines[j].rfind("$ ", 0) != 0; ++j) {
      example.expected += lines[j] + "\n";
      example.last = first + j + 1;
    }
    doc->steps.emplace_back(doc->files.size(), std::move(example));
  }
}

}  // namespace doc_examples_detail

inline DocExamples ParseDocExamples(const std::string& markdown) {
  DocExamples doc;
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) doc.lines.push_back(line);
  std::string info;
  std::vector<std::string> block;
  bool inside = false;
  std::size_t block_start = 0;
  for (std::size_t number = 0; number < doc.lines.size(); ++number) {
    const std::string& line = doc.lines[number];
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
    if (info == "console") doc_examples_detail::ParseConsole(block, block_start, &doc);
    const auto file = info.find("file=");
    if (file != std::string::npos) {
      std::string text;
      for (const std::string& l : block) text += l + "\n";
      doc.files.emplace_back(info.substr(file + 5), text);
    }
  }
  return doc;
}

// The document with each example's printed output replaced by `actual[i]`
// (for steps[i]; a missing entry keeps the printed text).
inline std::string RewriteDocExamples(const DocExamples& doc,
                                      const std::map<std::size_t, std::string>& actual) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < doc.steps.size(); ++i) {
    const DocExample& example = doc.steps[i].second;
    auto it = actual.find(i);
    if (it == actual.end()) continue;
    for (; next < example.first; ++next) out += doc.lines[next] + "\n";
    out += it->second;
    next = example.last;
  }
  for (; next < doc.lines.size(); ++next) out += doc.lines[next] + "\n";
  return out;
}

}  // namespace hwrec::test
