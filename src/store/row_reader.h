// Reading a result row into variables: ReadRow(statement, a, b, c) reads
// columns 0, 1, 2 into a, b, c by their types (text, integers, reals, and
// optional ones for nullable columns), so that the code that owns a table
// names each struct field once instead of one column read per line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/database.h"

namespace hwrec::store {

inline void ReadColumn(const Statement& row, int column, std::string& out) {
  row.AssignText(column, &out);
}
inline void ReadColumn(const Statement& row, int column, std::optional<std::string>& out) {
  row.AssignOptionalText(column, &out);
}
inline void ReadColumn(const Statement& row, int column, double& out) { out = row.Double(column); }
inline void ReadColumn(const Statement& row, int column, std::optional<double>& out) {
  out = row.OptionalDouble(column);
}
inline void ReadColumn(const Statement& row, int column, std::int64_t& out) {
  out = row.Int64(column);
}
inline void ReadColumn(const Statement& row, int column, int& out) { out = row.Int(column); }
inline void ReadColumn(const Statement& row, int column, std::optional<std::int64_t>& out) {
  out = row.OptionalInt64(column);
}

// Reads columns 0 … sizeof...(out) - 1 of the current row into `out…`.
template <typename... T>
void ReadRow(const Statement& row, T&... out) {
  int column = 0;
  (ReadColumn(row, column++, out), ...);
}

}  // namespace hwrec::store
