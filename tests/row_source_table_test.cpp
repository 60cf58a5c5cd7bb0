#include "store/row_source_table.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/sqlite_connection.h"

#include <catch2/catch.hpp>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using hwrec::internal::RowSource;
using hwrec::internal::RowSourceTable;
using hwrec::internal::SqlValue;

namespace {

struct Row {
  std::int64_t id = 0;
  double share = 0;
  std::string name;
  std::optional<std::string> note;
  std::array<unsigned char, 3> bytes{};
};

// Rows held in memory; `fail_at` makes Values throw for that row.
class Rows : public RowSource {
 public:
  std::size_t RowCount() const override { return rows.size(); }
  void Values(std::size_t row, SqlValue* values) const override {
    if (fail_at && *fail_at == row)
      throw std::runtime_error("row " + std::to_string(row) + " is bad");
    const Row& r = rows[row];
    values[0] = SqlValue::Integer(r.id);
    values[1] = SqlValue::Real(r.share);
    values[2] = SqlValue::Text(r.name);
    values[3] = SqlValue::Text(r.note);
    values[4] = SqlValue::Blob(r.bytes.data(), r.bytes.size());
  }
  std::vector<Row> rows;
  std::optional<std::size_t> fail_at;
};

const std::vector<std::string> kColumns = {"id", "share", "name", "note", "bytes"};

}  // namespace

TEST_CASE("row source table: SQL reads the rows in order with their types", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  const auto connection = hwrec::store::MakeSqliteConnection(db.getHandle());
  Rows rows;
  rows.rows = {{1, 0.5, "a100", std::nullopt, {1, 2, 3}}, {2, 0.25, "h100", "mig", {0, 0, 7}}};
  RowSourceTable table(*connection, "test_rows", kColumns, &rows);

  SQLite::Statement q(db,
                      "SELECT id, share, name, note, hex(bytes), typeof(id), typeof(share), "
                      "typeof(name), typeof(note), typeof(bytes) FROM test_rows");
  REQUIRE(q.executeStep());
  CHECK(q.getColumn(0).getInt64() == 1);
  CHECK(q.getColumn(1).getDouble() == 0.5);
  CHECK(q.getColumn(2).getString() == "a100");
  CHECK(q.getColumn(3).isNull());
  CHECK(q.getColumn(4).getString() == "010203");
  CHECK(q.getColumn(5).getString() == "integer");
  CHECK(q.getColumn(6).getString() == "real");
  CHECK(q.getColumn(7).getString() == "text");
  CHECK(q.getColumn(8).getString() == "null");
  CHECK(q.getColumn(9).getString() == "blob");
  REQUIRE(q.executeStep());
  CHECK(q.getColumn(2).getString() == "h100");
  CHECK(q.getColumn(3).getString() == "mig");
  CHECK_FALSE(q.executeStep());
  q.reset();

  SECTION("a statement sees the rows the source holds when it runs") {
    rows.rows.push_back({3, 1, "a30", std::nullopt, {}});
    CHECK(db.execAndGet("SELECT count(*) FROM test_rows").getInt() == 3);
    rows.rows.clear();
    CHECK(db.execAndGet("SELECT count(*) FROM test_rows").getInt() == 0);
  }
  SECTION("INSERT ... SELECT copies the rows into a table") {
    db.exec(
        "CREATE TABLE cards (id INTEGER PRIMARY KEY, share REAL, name TEXT, note TEXT, bytes "
        "BLOB)");
    CHECK(db.exec("INSERT INTO cards SELECT * FROM test_rows") == 2);
    CHECK(db.execAndGet("SELECT group_concat(name || ':' || typeof(name), ',') FROM cards")
              .getString() == "a100:text,h100:text");
  }
  SECTION("it is no part of the schema") {
    CHECK(db.execAndGet("SELECT count(*) FROM sqlite_schema").getInt() == 0);
  }
}

TEST_CASE("row source table: a failing row aborts the statement and nothing of it stays",
          "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  const auto connection = hwrec::store::MakeSqliteConnection(db.getHandle());
  db.exec(
      "CREATE TABLE cards (id INTEGER PRIMARY KEY, share REAL, name TEXT, note TEXT, bytes BLOB)");
  Rows rows;
  for (int i = 1; i <= 5; ++i) rows.rows.push_back({i, 0.5, "card", std::nullopt, {}});
  rows.fail_at = 3;
  RowSourceTable table(*connection, "test_rows", kColumns, &rows);
  db.exec("BEGIN");
  CHECK_THROWS_WITH(db.exec("INSERT INTO cards SELECT * FROM test_rows"),
                    Catch::Contains("row 3 is bad"));
  CHECK(db.execAndGet("SELECT count(*) FROM cards").getInt() == 0);
  db.exec("COMMIT");
}

TEST_CASE("row source table: the table is gone once the RowSourceTable is", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  const auto connection = hwrec::store::MakeSqliteConnection(db.getHandle());
  Rows rows;
  {
    RowSourceTable table(*connection, "test_rows", kColumns, &rows);
    CHECK(db.execAndGet("SELECT count(*) FROM test_rows").getInt() == 0);
  }
  CHECK_THROWS_WITH(SQLite::Statement(db, "SELECT count(*) FROM test_rows"),
                    Catch::Contains("no such table"));
  // The name can be registered again.
  RowSourceTable again(*connection, "test_rows", kColumns, &rows);
  CHECK(db.execAndGet("SELECT count(*) FROM test_rows").getInt() == 0);
}
