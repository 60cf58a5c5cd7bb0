#include "store/migrator.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "base/sha256.h"
#include "base/time.h"
#include "store/row_values.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_util.h"

namespace hwrec::internal {

std::string MigrationChecksum(const Migration& migration) { return Sha256Hex(migration.sql); }

namespace {
std::string Label(int version, const std::string& name) {
  return fmt::format("{:04d}_{}", version, name);
}

// As SQLite's strftime('%Y-%m-%dT%H:%M:%fZ') wrote it: milliseconds, always.
std::string AppliedAt(double now) {
  const double seconds = std::floor(now);
  const int millis = std::min(999, static_cast<int>((now - seconds) * 1000));
  std::string text = FormatRfc3339(seconds);  // …:SSZ
  text.pop_back();
  return fmt::format("{}.{:03d}Z", text, millis);
}

// Replicas that open one store at once take turns to migrate it. SQLite's
// immediate write transaction already serialises them; on PostgreSQL two
// transactions creating the same tables would collide, so the first holds a
// session advisory lock (keyed by the schema) while it applies, and each
// migration starts its transaction, and so its snapshot, after the lock.
class MigrationTurn {
 public:
  explicit MigrationTurn(store::Connection& db) : db_(db) {
    if (db_.engine() != store::Engine::kPostgresql) return;
    db_.Execute(std::string("SELECT pg_advisory_lock(") + kKey + ")");
    held_ = true;
  }
  MigrationTurn(const MigrationTurn&) = delete;
  MigrationTurn& operator=(const MigrationTurn&) = delete;
  ~MigrationTurn() {
    if (!held_) return;
    try {
      db_.Execute(std::string("SELECT pg_advisory_unlock(") + kKey + ")");
    } catch (const std::exception&) {
      // A lost connection has released the lock with its session.
    }
  }

 private:
  static constexpr const char* kKey = "hashtext('hwrec.migrations.' || current_schema())";
  store::Connection& db_;
  bool held_ = false;
};
}  // namespace

Migrator::Migrator(SQLite::Database& db, const std::vector<Migration>& migrations)
    : owned_(store::MakeSqliteConnection(db.getHandle())), db_(*owned_), migrations_(migrations) {}

Migrator::Migrator(store::Connection& db, const std::vector<Migration>& migrations)
    : db_(db), migrations_(migrations) {}

Migrator::Migrator(const Store& store)
    : Migrator(store::ConnectionOf(store),
               EmbeddedMigrations(store::ConnectionOf(store).engine())) {}

void Migrator::EnsureBookkeeping() {
  if (db_.HasTable("schema_migrations")) return;
  store::WriteTransaction tx(db_);
  CreateBookkeeping();
  tx.Commit();
}

void Migrator::CreateBookkeeping() {
  db_.Execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (\n"
      "  version INTEGER PRIMARY KEY,\n"
      "  name TEXT NOT NULL,\n"
      "  checksum TEXT NOT NULL,\n"
      "  applied_at TEXT NOT NULL\n"
      ")");
}

// SQLite keeps the version in the file header (PRAGMA user_version), where
// `sqlite3` shows it; PostgreSQL has no such slot: there it is the newest
// applied migration.
int Migrator::CurrentVersion() const {
  if (db_.engine() == store::Engine::kSqlite) {
    return static_cast<int>(db_.QueryInt64("PRAGMA user_version").value_or(0));
  }
  if (!db_.HasTable("schema_migrations")) return 0;
  return static_cast<int>(
      db_.QueryInt64("SELECT coalesce(max(version), 0) FROM schema_migrations").value_or(0));
}

int Migrator::LatestVersion() const { return migrations_.empty() ? 0 : migrations_.back().version; }

std::vector<MigrationInfo> Migrator::List() const {
  std::map<int, MigrationInfo> applied;
  if (db_.HasTable("schema_migrations")) {
    auto query = db_.Prepare("SELECT version, name, checksum, applied_at FROM schema_migrations");
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
  if (!db_.HasTable("schema_migrations")) return Status::Ok();
  auto query = db_.Prepare("SELECT version, name, checksum FROM schema_migrations");
  while (query->Step()) {
    const int version = query->Int(0);
    const std::string name = query->String(1);
    const std::string checksum = query->String(2);
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
    db_.Execute(m.sql);
    auto record = db_.Prepare(
        "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)");
    record->Bind(1, m.version);
    record->Bind(2, m.name);
    record->Bind(3, MigrationChecksum(m));
    record->Bind(4, AppliedAt(NowEpochSeconds()));
    record->Run();
    if (db_.engine() == store::Engine::kSqlite) {
      // PRAGMA takes no bound parameters; the version is an integer from the build.
      db_.Execute(fmt::format("PRAGMA user_version = {:d}", m.version));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("migration {} failed and changed nothing: {}",
                                         Label(m.version, m.name), e.what()));
  }
}

Result<std::vector<int>> Migrator::ApplyPending() {
  if (Status status = Check(); !status.ok()) return status;
  std::vector<int> applied;
  MigrationTurn turn(db_);
  for (const Migration& m : migrations_) {
    if (m.version <= CurrentVersion()) continue;
    store::WriteTransaction tx(db_);
    // Another replica may have applied it while this one waited for its turn.
    if (m.version <= CurrentVersion()) continue;
    try {
      CreateBookkeeping();  // with the first migration, so that a failure leaves nothing
    } catch (const std::exception& e) {
      return Status::Internal(std::string("creating schema_migrations failed: ") + e.what());
    }
    try {
      ApplyOne(m);
    } catch (const std::runtime_error& e) {
      return Status::Internal(e.what());
    }
    tx.Commit();
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
