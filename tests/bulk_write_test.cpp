#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#include "hwrec/store.h"
#include "store/bulk_write.h"
#include "store/database.h"
#include "test_support.h"

using hwrec::store::BulkWriteMode;
using hwrec::store::Connection;

namespace {

std::string JournalMode(Connection& db) { return db.QueryText("PRAGMA journal_mode").value(); }

}  // namespace

TEST_CASE("bulk write: a store's only connection writes through a rollback journal, then WAL again",
          "[bulk_write]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("bulk.db"));
  Connection& db = hwrec::store::ConnectionOf(*store);
  REQUIRE(JournalMode(db) == "wal");
  const auto cache_size = db.QueryInt64("PRAGMA cache_size");
  {
    BulkWriteMode bulk(db);
    CHECK(bulk.rollback_journal());
    CHECK(JournalMode(db) == "delete");
    CHECK(db.QueryInt64("PRAGMA cache_size") == -65536);
    CHECK(db.QueryInt64("PRAGMA synchronous") == 2);  // FULL
  }
  CHECK(JournalMode(db) == "wal");
  CHECK(db.QueryInt64("PRAGMA cache_size") == cache_size);
  CHECK(db.QueryInt64("PRAGMA synchronous") == 1);  // NORMAL
}

TEST_CASE("bulk write: leaving the scope by an exception restores the connection", "[bulk_write]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("bulk.db"));
  Connection& db = hwrec::store::ConnectionOf(*store);
  try {
    BulkWriteMode bulk(db);
    throw std::runtime_error("the move failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(JournalMode(db) == "wal");
}

TEST_CASE("bulk write: with another connection open the store stays in WAL", "[bulk_write]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("bulk.db"));
  auto reader = hwrec::test::OpenStoreOrFail(dir.File("bulk.db"));
  Connection& db = hwrec::store::ConnectionOf(*store);
  (void)hwrec::store::ConnectionOf(*reader).QueryInt64("SELECT count(*) FROM sqlite_master");
  {
    BulkWriteMode bulk(db);
    CHECK_FALSE(bulk.rollback_journal());
    CHECK(JournalMode(db) == "wal");
  }
  CHECK(JournalMode(db) == "wal");
}
