// Private SQLite plumbing shared by every part of src/: the one way to reach a
// Store's connection, the one way to write (BEGIN IMMEDIATE), and the mapping
// from SQLiteCpp exceptions to the public Status.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/time.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec::internal {

struct StoreAccess {
  static SQLite::Database& Db(Store& store);
  static SQLite::Database& Db(const Store& store);  // read paths only
  static store::Connection& Connection(const Store& store);
};

// The one way to write: an IMMEDIATE transaction that rolls back unless committed.
class WriteTransaction {
 public:
  explicit WriteTransaction(SQLite::Database& db)
      : tx_(db, SQLite::TransactionBehavior::IMMEDIATE) {}
  void Commit() { tx_.commit(); }

 private:
  SQLite::Transaction tx_;
};

// True when SQLite says the file is damaged (SQLITE_CORRUPT) or no longer
// reads as a database (SQLITE_NOTADB).
bool IsDamage(const std::exception& e);

// What a command says when SQLite finds the store damaged: what happened,
// and to run `hwrec check STORE` and restore the newest backup. `store_path`
// may be empty when the caller does not know it; `what` names the action.
std::string DamagedStoreMessage(const std::string& store_path, const std::string& what,
                                const std::exception& e);

// Binds an optional value: NULL when absent.
template <typename T>
void BindOptional(SQLite::Statement& statement, int index, const std::optional<T>& value) {
  if (value.has_value()) {
    statement.bind(index, *value);
  } else {
    statement.bind(index);
  }
}

inline void BindOptional(SQLite::Statement& statement, int index,
                         const std::optional<std::string>& value) {
  if (value.has_value()) {
    statement.bind(index, *value);  // SQLiteCpp copies std::string (SQLITE_TRANSIENT)
  } else {
    statement.bind(index);
  }
}

std::optional<std::string> ColumnOptionalText(const SQLite::Column& column);
std::optional<long long> ColumnOptionalInt64(const SQLite::Column& column);
std::optional<double> ColumnOptionalDouble(const SQLite::Column& column);
// Reads a text column into `*out`, reusing its buffer: for loops that read
// millions of rows into the same structs.
void AssignText(const SQLite::Column& column, std::string* out);
void AssignOptionalText(const SQLite::Column& column, std::optional<std::string>* out);

// A read query on SQLite's C API, for loops over millions of rows where a
// SQLiteCpp Column object per value costs more than the value. Takes no
// parameters. One thread at a time, like the connection.
class RawQuery {
 public:
  RawQuery(SQLite::Database& db, const std::string& sql);
  ~RawQuery();
  RawQuery(const RawQuery&) = delete;
  RawQuery& operator=(const RawQuery&) = delete;

  // True on a row, false when done; throws SQLite::Exception on an error.
  bool Step();
  sqlite3_stmt* handle() const { return statement_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
};

}  // namespace hwrec::internal
