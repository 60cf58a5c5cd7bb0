// An INSERT prepared with Connection::PrepareInsert tells the id of the row it
// added, and nothing when it added none, on either engine: ingest links each
// observation's aggregates to the id this gives.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "store/database.h"
#include "test_support.h"

namespace insert_id_test {

constexpr const char* kInsertWorkload =
    "INSERT INTO workloads (image) VALUES (?) ON CONFLICT (image) DO NOTHING";

std::optional<std::int64_t> Insert(hwrec::store::Connection& db, hwrec::store::Statement& insert,
                                   const std::string& image) {
  insert.Reset();
  insert.BindText(1, image);
  return db.RunInsert(insert);
}

std::int64_t StoredId(hwrec::store::Connection& db, const std::string& image) {
  auto select = db.Prepare("SELECT id FROM workloads WHERE image = ?");
  select->BindText(1, image);
  REQUIRE(select->Step());
  const std::int64_t id = select->Int64(0);
  select->Reset();
  return id;
}

TEST_CASE("insert id: a new row's id, none for a conflict, then the next row's own id",
          "[store][engine]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "insert_id"));
  hwrec::store::Connection& db = hwrec::store::ConnectionOf(*store);
  auto insert = db.PrepareInsert(kInsertWorkload, "id");
  hwrec::store::WriteTransaction transaction(db);

  const std::optional<std::int64_t> first = Insert(db, *insert, "registry.example/a:1");
  REQUIRE(first.has_value());
  CHECK(*first == StoredId(db, "registry.example/a:1"));
  // Already there: no row added, so no id (not the previous insert's).
  CHECK_FALSE(Insert(db, *insert, "registry.example/a:1").has_value());
  const std::optional<std::int64_t> second = Insert(db, *insert, "registry.example/b:1");
  REQUIRE(second.has_value());
  CHECK(*second == StoredId(db, "registry.example/b:1"));
  CHECK(*second != *first);
  transaction.Commit();
}

}  // namespace insert_id_test
