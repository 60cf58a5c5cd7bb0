// SQLite connections keep prepared statements for reuse by their SQL: a
// statement handed out again behaves as a freshly prepared one.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "store/database.h"
#include "store/sqlite_connection.h"

namespace statement_cache_test {

using hwrec::store::Connection;
using hwrec::store::Statement;

constexpr const char* kSelect = "SELECT name FROM items WHERE id = ?";

std::unique_ptr<Connection> Items(SQLite::Database& db) {
  db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)");
  db.exec("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
  return hwrec::store::MakeSqliteConnection(db.getHandle());
}

// The name of item `id`, read through `s` (kSelect).
std::string Name(Statement& s, std::int64_t id) {
  s.Bind(1, id);
  return s.Step() ? std::string(s.Text(0)) : std::string("<none>");
}

TEST_CASE("statement cache: a reused statement starts reset, its bindings cleared", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto connection = Items(db);
  {
    auto first = connection->Prepare(kSelect);
    CHECK(Name(*first, 2) == "two");  // left mid-result, bound to 2
  }
  auto again = connection->Prepare(kSelect);
  // Unbound parameters are NULL: a kept binding to 2 would find "two".
  CHECK_FALSE(again->Step());
  again->Reset();
  CHECK(Name(*again, 1) == "one");
}

TEST_CASE("statement cache: the same SQL in use twice at once gets two statements", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto connection = Items(db);
  { auto warm = connection->Prepare(kSelect); }
  auto outer = connection->Prepare(kSelect);
  auto inner = connection->Prepare(kSelect);
  CHECK(Name(*outer, 1) == "one");
  CHECK(Name(*inner, 2) == "two");  // does not disturb outer's row
  CHECK(outer->Text(0) == "one");
}

TEST_CASE("statement cache: statements kept or in use never outlive the handle's close",
          "[store]") {
  auto db =
      std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto connection = Items(*db);
  { auto kept = connection->Prepare(kSelect); }  // idle in the cache
  auto in_use = connection->Prepare("SELECT count(*) FROM items");
  CHECK(in_use->Step());
  connection.reset();  // finalizes the idle one
  in_use.reset();      // finalized as it comes back
  // Nothing is left to keep the handle open: it closes cleanly.
  CHECK(sqlite3_next_stmt(db->getHandle(), nullptr) == nullptr);
  db.reset();
}

TEST_CASE("statement cache: a schema change between uses is seen", "[store]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto connection = Items(db);
  { auto kept = connection->Prepare("SELECT * FROM items WHERE id = 1"); }
  connection->Execute("ALTER TABLE items ADD COLUMN size INTEGER DEFAULT 7");
  auto again = connection->Prepare("SELECT * FROM items WHERE id = 1");
  REQUIRE(again->Step());
  CHECK(again->ColumnCount() == 3);
  CHECK(again->Int64(2) == 7);
}

}  // namespace statement_cache_test
