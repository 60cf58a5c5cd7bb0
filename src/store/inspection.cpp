#include "store/inspection.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/migration.h"
#include "store/migrator.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_util.h"
#include "store/store_file.h"

namespace hwrec::store {

namespace {

class SqliteInspection : public Inspection {
 public:
  explicit SqliteInspection(const std::string& path)
      : db_(path, SQLite::OPEN_READONLY), connection_(MakeSqliteConnection(db_.getHandle())) {
    try {
      has_bookkeeping_ = db_.tableExists("schema_migrations");
    } catch (const SQLite::Exception& e) {
      if (!internal::IsDamage(e)) throw;  // a damaged schema is for the checks to report
    }
  }

  bool has_bookkeeping() const override { return has_bookkeeping_; }
  Connection& connection() override { return *connection_; }
  Status CheckMigrations() override {
    return internal::Migrator(db_, internal::EmbeddedMigrations()).Check();
  }

 private:
  SQLite::Database db_;
  std::unique_ptr<Connection> connection_;
  bool has_bookkeeping_ = true;
};

}  // namespace

Result<std::unique_ptr<Inspection>> Inspection::Open(const std::string& path) {
  try {
    return std::unique_ptr<Inspection>(std::make_unique<SqliteInspection>(path));
  } catch (const SQLite::Exception& e) {
    return internal::DescribeOpenFailure(path, e);
  }
}

}  // namespace hwrec::store
