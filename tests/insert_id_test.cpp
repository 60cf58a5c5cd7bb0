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

TEST_CASE("statements: a first run prepares in its own round trip; a failed one says why",
          "[store][engine]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "prepare"));
  hwrec::store::Connection& db = hwrec::store::ConnectionOf(*store);
  const std::int64_t per_run = hwrec::test::TestingPostgresql() ? 1 : 0;
  const auto count = [&](const std::string& image) {
    auto select = db.Prepare("SELECT count(*) FROM workloads WHERE image = ? AND id > ?");
    select->BindText(1, image);
    select->BindInt64(2, 0);
    REQUIRE(select->Step());
    return select->Int64(0);
  };
  // Prepared and run in one round trip, then run in one.
  for (int i = 0; i < 2; ++i) {
    const std::int64_t before = db.RoundTrips();
    CHECK(count("registry.example/none:1") == 0);
    CHECK(db.RoundTrips() - before == per_run);
  }
  // A statement the engine refuses: its error, and the connection goes on,
  // in a transaction's place and outside one.
  for (const bool in_transaction : {false, true}) {
    std::optional<hwrec::store::WriteTransaction> transaction;
    if (in_transaction) transaction.emplace(db);
    std::string error;
    try {
      auto bad = db.Prepare("SELECT no_such_column FROM workloads WHERE image = ?");
      bad->BindText(1, "x");
      bad->Step();
    } catch (const std::exception& e) {
      error = e.what();
    }
    CHECK_THAT(error, Catch::Contains("no_such_column"));
    transaction.reset();  // rolled back
    CHECK(count("registry.example/none:1") == 0);
  }
  hwrec::store::WriteTransaction transaction(db);
  auto insert = db.PrepareInsert(kInsertWorkload, "id");
  CHECK(Insert(db, *insert, "registry.example/a:1").has_value());
  transaction.Commit();
  CHECK(count("registry.example/a:1") == 1);
  // One that prepares but fails as it first runs (the image is there).
  std::string duplicate;
  try {
    hwrec::store::WriteTransaction again(db);
    auto insert_twice = db.Prepare("INSERT INTO workloads (image) VALUES (?)");
    insert_twice->BindText(1, "registry.example/a:1");
    insert_twice->Run();
  } catch (const std::exception& e) {
    duplicate = e.what();
  }
  CHECK_THAT(duplicate, Catch::Contains("unique", Catch::CaseSensitive::No));
  CHECK(count("registry.example/a:1") == 1);
}

}  // namespace insert_id_test
