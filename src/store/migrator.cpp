#include "store/migrator.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <map>
#include <memory>
#include <stdexcept>

#include "base/sha256.h"
#include "store/row_values.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_util.h"

namespace hwrec::internal {

std::string MigrationChecksum(const Migration& migration) { return Sha256Hex(migration.sql); }

namespace {
std::string Label(int version, const std::string& name) {
  return fmt::format("{:04d}_{}", version, name);
}
}  // namespace

Migrator::Migrator(SQLite::Database& db, const std::vector<Migration>& migrations)
    : db_(db), migrations_(migrations) {}

Migrator::Migrator(const Store& store, const std::vector<Migration>& migrations)
    : Migrator(StoreAccess::Db(store), migrations) {}

void Migrator::EnsureBookkeeping() {
  if (db_.tableExists("schema_migrations")) return;
  SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
  CreateBookkeeping();
  tx.commit();
}

void Migrator::CreateBookkeeping() {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (\n"
      "  version INTEGER PRIMARY KEY,\n"
      "  name TEXT NOT NULL,\n"
      "  checksum TEXT NOT NULL,\n"
      "  applied_at TEXT NOT NULL\n"
      ")");
}

int Migrator::CurrentVersion() const { return db_.execAndGet("PRAGMA user_version").getInt(); }

int Migrator::LatestVersion() const { return migrations_.empty() ? 0 : migrations_.back().version; }

std::vector<MigrationInfo> Migrator::List() const {
  std::map<int, MigrationInfo> applied;
  const std::unique_ptr<store::Connection> db = store::MakeSqliteConnection(db_.getHandle());
  if (db->HasTable("schema_migrations")) {
    auto query = db->Prepare("SELECT version, name, checksum, applied_at FROM schema_migrations");
    while (query->Step()) {
      MigrationInfo info;
      store::ReadRow(*query, &info.version, &info.name, &info.checksum, &info.applied_at);
      info.applied = true;
      applied[info.version] = info;
    }
  }
  std::vector<MigrationInfo> out;
  for (const Migration& m : migrations_) {
    auto it = applied.find(m.version);
    if (it != applied.end()) {
      out.push_back(it->second);
      applied.erase(it);
      continue;
    }
    MigrationInfo info;
    info.version = m.version;
    info.name = m.name;
    info.checksum = MigrationChecksum(m);
    out.push_back(info);
  }
  for (auto& [version, info] : applied) out.push_back(info);  // unknown to this build
  return out;
}

Status Migrator::Check() const {
  const int current = CurrentVersion();
  const int latest = LatestVersion();
  if (current > latest) {
    return Status::SchemaMismatch(
        fmt::format("store is at schema {} but this build of hwrec knows schema {} at most: "
                    "upgrade hwrec to open it",
                    current, latest));
  }
  if (!db_.tableExists("schema_migrations")) return Status::Ok();
  SQLite::Statement query(db_, "SELECT version, name, checksum FROM schema_migrations");
  while (query.executeStep()) {
    const int version = query.getColumn(0).getInt();
    const std::string name = query.getColumn(1).getString();
    const std::string checksum = query.getColumn(2).getString();
    const Migration* known = nullptr;
    for (const Migration& m : migrations_) {
      if (m.version == version) known = &m;
    }
    if (known == nullptr) {
      return Status::SchemaMismatch(fmt::format(
          "store has migration {} applied but this build of hwrec knows schema {} at most: "
          "upgrade hwrec to open it",
          Label(version, name), latest));
    }
    const std::string expected = MigrationChecksum(*known);
    if (checksum != expected) {
      return Status::SchemaMismatch(fmt::format(
          "migration {} applied to this store has checksum {} but this build's has {}: "
          "the store was written by a different build of hwrec or its migration was edited; "
          "open it with the hwrec build that created it",
          Label(version, name), checksum.substr(0, 12), expected.substr(0, 12)));
    }
  }
  return Status::Ok();
}

std::vector<int> Migrator::Pending() const {
  const int current = CurrentVersion();
  std::vector<int> pending;
  for (const Migration& m : migrations_) {
    if (m.version > current) pending.push_back(m.version);
  }
  return pending;
}

void Migrator::ApplyOne(const Migration& m) {
  try {
    db_.exec(m.sql);
    SQLite::Statement record(db_,
                             "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
                             "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
    record.bind(1, m.version);
    record.bind(2, m.name);
    record.bind(3, MigrationChecksum(m));
    record.exec();
    // PRAGMA takes no bound parameters; the version is an integer from the build.
    db_.exec(fmt::format("PRAGMA user_version = {:d}", m.version));
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(fmt::format("migration {} failed and changed nothing: {}",
                                         Label(m.version, m.name), e.what()));
  }
}

Result<std::vector<int>> Migrator::ApplyPending() {
  if (Status status = Check(); !status.ok()) return status;
  std::vector<int> applied;
  for (const Migration& m : migrations_) {
    if (m.version <= CurrentVersion()) continue;
    SQLite::Transaction tx(db_, SQLite::TransactionBehavior::IMMEDIATE);
    try {
      CreateBookkeeping();  // with the first migration, so that a failure leaves nothing
      ApplyOne(m);
    } catch (const SQLite::Exception& e) {
      return Status::Internal(std::string("creating schema_migrations failed: ") + e.what());
    } catch (const std::runtime_error& e) {
      return Status::Internal(e.what());
    }
    tx.commit();
    applied.push_back(m.version);
  }
  return applied;
}

std::vector<int> Migrator::ApplyPendingInCallerTransaction() {
  std::vector<int> applied;
  for (const Migration& m : migrations_) {
    if (m.version <= CurrentVersion()) continue;
    ApplyOne(m);
    applied.push_back(m.version);
  }
  return applied;
}

}  // namespace hwrec::internal
