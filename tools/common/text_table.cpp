#include "common/text_table.h"

#include <algorithm>
#include <ostream>

#include "common/terminal_text.h"

namespace hwrec::tools {

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {
  for (std::string& header : headers_) header = TerminalSafe(header);
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  for (std::string& cell : cells) cell = TerminalSafe(cell);
  rows_.push_back(std::move(cells));
}

void Table::Print(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = DisplayWidth(headers_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      line += cells[c];
      if (c + 1 < cells.size()) line.append(widths[c] - DisplayWidth(cells[c]), ' ');
    }
    out << line << "\n";
  };
  print_row(headers_);
  std::vector<std::string> rule;
  for (std::size_t w : widths) rule.emplace_back(w, '-');
  print_row(rule);
  for (const auto& row : rows_) print_row(row);
}

}  // namespace hwrec::tools
