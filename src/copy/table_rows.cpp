#include "copy/table_rows.h"

#include <fmt/format.h>

#include <algorithm>

namespace hwrec::internal {

namespace {

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) out += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return out;
}

std::string ValueText(const store::Statement& row, int column) {
  switch (row.Kind(column)) {
    case store::ValueKind::kNull:
      return "null";
    case store::ValueKind::kInteger:
      return fmt::format("i:{}", row.Int64(column));
    case store::ValueKind::kReal:
      return fmt::format("r:{}", row.Double(column));  // shortest text that reads back exactly
    case store::ValueKind::kText: {
      const std::string_view text = row.Text(column);
      return fmt::format("t{}:{}", text.size(), text);
    }
    case store::ValueKind::kBlob: {
      const std::string_view bytes = row.Blob(column);
      return fmt::format("b{}:{}", bytes.size(), Hex(bytes));
    }
  }
  return "?";
}

}  // namespace

std::vector<std::string> TableRows(store::Connection& db, const std::string& table) {
  std::vector<std::string> rows;
  const auto query = db.Prepare("SELECT * FROM " + table);
  while (query->Step()) {
    std::string line;
    for (int c = 0; c < query->ColumnCount(); ++c) {
      if (c > 0) line += '|';
      line += ValueText(*query, c);
    }
    rows.push_back(std::move(line));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::int64_t TableRowCount(store::Connection& db, const std::string& table) {
  return db.QueryInt64("SELECT count(*) FROM " + table).value_or(0);
}

}  // namespace hwrec::internal
