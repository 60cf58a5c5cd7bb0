#include "store/inspection.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <map>
#include <regex>

#include "base/status_error.h"
#include "hwrec/remedy.h"
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

// Root page -> table or index name, to say where SQLite's findings are.
std::map<long long, std::string> RootPages(Connection& db) {
  std::map<long long, std::string> pages;
  try {
    const auto query = db.Prepare("SELECT rootpage, type || ' ' || name FROM sqlite_master");
    while (query->Step()) pages[query->Int64(0)] = query->String(1);
  } catch (const std::exception&) {
    // The schema itself is unreadable: the findings stay as SQLite words them.
  }
  return pages;
}

// Reports what `PRAGMA integrity_check` (of one table, or of all) finds;
// throws when SQLite stops at a page it cannot read.
void IntegrityOf(Connection& db, const std::string& table,
                 const std::map<long long, std::string>& pages, const ProblemSink& problem) {
  const std::regex tree("Tree ([0-9]+)");
  // PRAGMA arguments cannot be bound; the name comes from sqlite_master, quoted.
  const auto query = db.Prepare(table.empty() ? std::string("PRAGMA integrity_check(10000)")
                                              : "PRAGMA integrity_check(\"" + table + "\")");
  while (query->Step()) {
    std::string line = query->String(0);
    if (line == "ok" || line.rfind("*** in database", 0) == 0) continue;
    std::smatch match;
    if (std::regex_search(line, match, tree)) {
      const auto at = pages.find(std::stoll(match[1].str()));
      if (at != pages.end()) line += fmt::format(" ({})", at->second);
    }
    problem(table.empty() ? line : fmt::format("table {}: {}", table, line));
  }
}

// SQLite's integrity_check; where it stops at an unreadable page, table by
// table, to say where.
void CheckIntegrity(Connection& db, const ProblemSink& problem) {
  const auto pages = RootPages(db);
  bool found = false;
  const ProblemSink counted = [&](std::string p) {
    found = true;
    problem(std::move(p));
  };
  try {
    IntegrityOf(db, "", pages, counted);
    return;
  } catch (const std::exception& e) {
    if (!internal::IsDamage(e)) throw;
  }
  bool named = false;
  for (const auto& [page, name] : pages) {
    if (name.rfind("table ", 0) != 0 || name.find('"') != std::string::npos) continue;
    const std::string table = name.substr(6);
    try {
      IntegrityOf(db, table, pages, counted);
    } catch (const std::exception& e) {
      counted(fmt::format("table {} cannot be read: {}", table, e.what()));
      named = true;
    }
  }
  if (!named && !found) problem("SQLite stopped at a page it cannot read");
}

void CheckForeignKeys(Connection& db, const ProblemSink& problem) {
  const auto query = db.Prepare("PRAGMA foreign_key_check");
  while (query->Step()) {
    const std::string row =
        query->IsNull(1) ? std::string("a row") : fmt::format("row {}", query->Int64(1));
    problem(fmt::format("{} of {} names a {} row that does not exist", row, query->String(0),
                        query->String(2)));
  }
}

// type+name -> SQL of every table, index, view and trigger of a SQLite file.
std::map<std::string, std::string> SchemaObjects(Connection& db) {
  std::map<std::string, std::string> objects;
  const auto query = db.Prepare(
      "SELECT type || ' ' || name, sql FROM sqlite_master WHERE sql IS NOT "
      "NULL AND name NOT LIKE 'sqlite_%'");
  while (query->Step()) objects[query->String(0)] = query->String(1);
  return objects;
}

// What this build's migrations create, in a scratch SQLite store.
std::map<std::string, std::string> ExpectedSchemaObjects() {
  StoreOptions scratch;
  scratch.create_if_missing = true;
  auto fresh = Store::Open(":memory:", scratch);
  if (!fresh.ok()) internal::ThrowIfError(fresh.status());
  return SchemaObjects(ConnectionOf(**fresh));
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
  std::string SchemaVersionName() const override { return "PRAGMA user_version"; }

  StorageCheckPlan Plan(StorageCheck check) const override {
    return {true, check == StorageCheck::kIntegrity
                      ? "SQLite's integrity_check: every page and index"
                      : "SQLite's foreign_key_check: every reference"};
  }
  void Run(StorageCheck check, const ProblemSink& problem) override {
    if (check == StorageCheck::kIntegrity) {
      CheckIntegrity(*connection_, problem);
    } else {
      CheckForeignKeys(*connection_, problem);
    }
  }

  std::string SchemaCheckSummary() const override {
    return "applied migrations match this build's, tables are as they create";
  }
  void CompareSchemaObjects(const ProblemSink& problem) override {
    const auto actual = SchemaObjects(*connection_);
    for (const auto& [name, sql] : ExpectedSchemaObjects()) {
      const auto at = actual.find(name);
      if (at == actual.end()) {
        problem(fmt::format("{} is missing", name));
      } else if (at->second != sql) {
        problem(fmt::format("{} differs from what the migrations create", name));
      }
    }
  }

  std::string RestoreFix() const override {
    return "restore the store from {1} (keep the damaged file aside), or copy what can still be "
           "read with `sqlite3 {0} .recover | sqlite3 NEW.db`";
  }
  std::unique_ptr<ReadSnapshot> CheckSnapshot() override { return nullptr; }

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
  std::string SchemaVersionName() const override { return "the schema version"; }

  StorageCheckPlan Plan(StorageCheck check) const override {
    return {false, check == StorageCheck::kIntegrity
                       ? "skipped: PostgreSQL checks its own pages; SQLite's integrity_check is "
                         "for store files"
                       : "skipped: PostgreSQL enforces every reference as it is written"};
  }
  void Run(StorageCheck, const ProblemSink&) override {}

  std::string SchemaCheckSummary() const override {
    return "applied migrations match this build's for PostgreSQL";
  }
  void CompareSchemaObjects(const ProblemSink& problem) override {
    Connection& db = connection();
    for (const auto& [name, sql] : ExpectedSchemaObjects()) {
      for (const std::string kind : {"table ", "view "}) {
        if (name.rfind(kind, 0) == 0 && !db.HasTable(name.substr(kind.size()))) {
          problem(fmt::format("{} is missing", name));
        }
      }
    }
  }

  std::string RestoreFix() const override {
    return "restore the database from its backup (pg_dump/pg_restore), or run " +
           RemedyText(Remedy::kMigrate, "{0}") + " when the store is older than this build";
  }
  std::unique_ptr<ReadSnapshot> CheckSnapshot() override {
    return std::make_unique<ReadSnapshot>(connection());
  }

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
