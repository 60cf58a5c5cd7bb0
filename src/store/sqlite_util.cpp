#include "store/sqlite_util.h"

#include <chrono>

namespace hwrec::internal {

std::optional<std::string> ColumnOptionalText(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getString();
}

std::optional<long long> ColumnOptionalInt64(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getInt64();
}

std::optional<double> ColumnOptionalDouble(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getDouble();
}

double NowEpochSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace hwrec::internal
