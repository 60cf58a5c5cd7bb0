#include "store/inspection.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include "hwrec/store.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "store/pg_connection.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_util.h"
#include "store/store_file.h"

namespace hwrec::store {

namespace {

// The file opened read-only, or, where its WAL index cannot be made (a
// directory this user cannot write, read-only media), immutable, as a
// read-only Store does: a check never writes, so it needs no flag for that.
SQLite::Database OpenForReading(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  try {
    db.execAndGet("SELECT count(*) FROM sqlite_master");
    return db;
  } catch (const SQLite::Exception& e) {
    if (!internal::MayOpenImmutable(e.getExtendedErrorCode())) throw;
    if (internal::ImmutableWouldMislead(path)) throw;
  }
  return SQLite::Database(internal::ImmutableUri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
}

class SqliteInspection : public Inspection {
 public:
  explicit SqliteInspection(const std::string& path)
      : db_(OpenForReading(path)), connection_(MakeSqliteConnection(db_.getHandle())) {
    try {
      has_bookkeeping_ = db_.tableExists("schema_migrations");
    } catch (const SQLite::Exception& e) {
      if (!internal::IsDamage(e)) throw;  // a damaged schema is for the checks to report
    }
  }

  bool has_bookkeeping() const override { return has_bookkeeping_; }
  Connection& connection() override { return *connection_; }
  int SchemaVersion() override {
    return static_cast<int>(connection_->QueryInt64("PRAGMA user_version").value_or(0));
  }
  Status CheckMigrations() override {
    return internal::Migrator(db_, internal::EmbeddedMigrations()).Check();
  }

 private:
  SQLite::Database db_;
  std::unique_ptr<Connection> connection_;
  bool has_bookkeeping_ = true;
};

// A PostgreSQL store, opened read-only by Store::Open (which never writes
// then) with inspect_schema, so that an altered schema is for the checks to
// report.
class ServerInspection : public Inspection {
 public:
  explicit ServerInspection(std::unique_ptr<Store> store) : store_(std::move(store)) {}

  bool has_bookkeeping() const override { return true; }  // Store::Open recognised it
  Connection& connection() override { return ConnectionOf(*store_); }
  int SchemaVersion() override { return store_->schema_version(); }
  Status CheckMigrations() override { return internal::Migrator(*store_).Check(); }

 private:
  std::unique_ptr<Store> store_;
};

Result<std::unique_ptr<Inspection>> OpenServer(const std::string& uri) {
  StoreOptions options;
  options.read_only = true;
  options.inspect_schema = true;
  auto store = Store::Open(uri, options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Inspection>(std::make_unique<ServerInspection>(std::move(*store)));
}

}  // namespace

Result<std::unique_ptr<Inspection>> Inspection::Open(const std::string& path) {
  if (IsPostgresqlUri(path)) return OpenServer(path);
  try {
    return std::unique_ptr<Inspection>(std::make_unique<SqliteInspection>(path));
  } catch (const SQLite::Exception& e) {
    return internal::DescribeOpenFailure(path, e);
  }
}

}  // namespace hwrec::store
