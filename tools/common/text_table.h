// A plain text table for terminals: left-aligned columns, headers underlined,
// columns lined up by display width (terminal_text.h), so that multi-byte and
// East Asian text stays aligned. Every cell is shown through TerminalSafe:
// callers add raw text.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace hwrec::tools {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  // Missing cells are empty; cells beyond the headers are dropped.
  void AddRow(std::vector<std::string> cells);
  void Print(std::ostream& out) const;
  std::size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hwrec::tools
