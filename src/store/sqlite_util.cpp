#include "store/sqlite_util.h"

#include <sqlite3.h>

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

void AssignText(const SQLite::Column& column, std::string* out) {
  const char* text = column.getText();  // before getBytes: the text form's length
  out->assign(text, static_cast<std::size_t>(column.getBytes()));
}

void AssignOptionalText(const SQLite::Column& column, std::optional<std::string>* out) {
  if (column.isNull()) {
    out->reset();
    return;
  }
  if (!out->has_value()) out->emplace();
  AssignText(column, &**out);
}

RawQuery::RawQuery(SQLite::Database& db, const std::string& sql) : db_(db.getHandle()) {
  const int rc =
      sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size() + 1), &statement_, nullptr);
  if (rc != SQLITE_OK) {
    SQLite::Exception error(db_, rc);
    sqlite3_finalize(statement_);
    throw error;
  }
}

RawQuery::~RawQuery() { sqlite3_finalize(statement_); }

bool RawQuery::Step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw SQLite::Exception(db_, rc);
}

double NowEpochSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace hwrec::internal
