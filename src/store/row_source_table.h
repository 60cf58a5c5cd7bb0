// RowSourceTable: rows held in memory, readable from SQL as a table, so that
// a bulk write is one INSERT ... SELECT instead of one statement per row.
// SQLite runs such an insert as one loop over the rows, without resetting,
// re-binding and re-opening cursors for every row; hwrec's legacy migration
// moves its batches this way.
//
// The table is an eponymous virtual table, known only to the connection it is
// registered on and only while the RowSourceTable lives; nothing is written to
// the schema. Values are handed to SQLite without copying: the source must
// stay alive and unchanged while a statement reading the table steps.
// One thread at a time, like the connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace hwrec::internal {

// One SQL value that points into its owner's memory.
struct SqlValue {
  enum class Kind { kNull, kInteger, kReal, kText, kBlob };
  Kind kind = Kind::kNull;
  std::int64_t integer = 0;
  double real = 0;
  const void* data = nullptr;  // kText (UTF-8) and kBlob
  int size = 0;
  const std::string* string = nullptr;  // kText, when it is a std::string's

  static SqlValue Null() { return {}; }
  static SqlValue Integer(std::int64_t v) { return {Kind::kInteger, v, 0, nullptr, 0, nullptr}; }
  static SqlValue Real(double v) { return {Kind::kReal, 0, v, nullptr, 0, nullptr}; }
  static SqlValue Text(std::string_view v) {
    return {Kind::kText, 0, 0, v.data(), static_cast<int>(v.size()), nullptr};
  }
  static SqlValue Text(const std::string& v) {
    return {Kind::kText, 0, 0, v.data(), static_cast<int>(v.size()), &v};
  }
  static SqlValue Text(const char* v) { return Text(std::string_view(v)); }
  static SqlValue Blob(const void* data, std::size_t size) {
    return {Kind::kBlob, 0, 0, data, static_cast<int>(size), nullptr};
  }
  static SqlValue Text(const std::optional<std::string>& v) { return v ? Text(*v) : Null(); }
  static SqlValue Integer(const std::optional<std::int64_t>& v) { return v ? Integer(*v) : Null(); }
  static SqlValue Real(const std::optional<double>& v) { return v ? Real(*v) : Null(); }
};

// Binds `value` to parameter `index`, without copying a std::string's text
// or a blob: the statement must be stepped before the value's owner changes.
void BindValue(store::Statement& statement, int index, const SqlValue& value);

// What a RowSourceTable reads.
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual std::size_t RowCount() const = 0;
  // Fills `values` with row `row`, one value per column in the table's
  // declared order.
  virtual void Values(std::size_t row, SqlValue* values) const = 0;
};

class RowSourceTable {
 public:
  // Registers table `name` with `columns` on `db`, reading `source`.
  RowSourceTable(store::Connection& db, const std::string& name,
                 const std::vector<std::string>& columns, const RowSource* source);
  // Unregisters the table. Statements that read it must be finalized first.
  ~RowSourceTable();
  RowSourceTable(const RowSourceTable&) = delete;
  RowSourceTable& operator=(const RowSourceTable&) = delete;

  struct Definition;

 private:
  store::Connection& db_;
  std::string name_;
};

}  // namespace hwrec::internal
