#include "hwrec/store.h"
#include "hwrec/remedy.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>

#include "store/backup.h"
#include "store/bulk_write.h"
#include "store/legacy_history.h"
#include "store/migrator.h"
#include "store/pg_connection.h"
#include "store/pg_schema.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_util.h"
#include "store/store_file.h"
#include "store/store_impl_internal.h"

namespace hwrec {

namespace {

// Closing SQLite's last connection to a WAL database checkpoints and deletes
// the WAL under an exclusive lock, and any close tries for that lock: either
// refuses a reader that opens meanwhile without a busy timeout (the sqlite3
// shell). hwrec's connections close without it.
void KeepWalOnClose(SQLite::Database& db) {
  sqlite3_db_config(db.getHandle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
}

// Before a writable connection closes: copies the WAL into the store and
// empties it, so that the next first opener's WAL recovery reads nothing, and
// so blocks other openers for no time. Skipped without waiting when readers
// still use the WAL: while they are connected no recovery is needed.
void CheckpointBeforeClose(SQLite::Database& db) {
  sqlite3_busy_timeout(db.getHandle(), 0);
  sqlite3_exec(db.getHandle(), "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
}

}  // namespace

Store::Impl::~Impl() {
  connection.reset();
  if (db && !options.read_only) CheckpointBeforeClose(*db);
}

namespace internal {
SQLite::Database& StoreAccess::Db(const Store& store) {
  if (!Store::Impl::Of(store).db) {
    throw StatusError(Status::InvalidArgument(fmt::format(
        "{}: this works on SQLite store files only: copy the store into a file first ({})",
        store.path(), RemedyText(Remedy::kCopy))));
  }
  return *Store::Impl::Of(store).db;
}
SQLite::Database& StoreAccess::Db(Store& store) { return Db(static_cast<const Store&>(store)); }
store::Connection& StoreAccess::Connection(const Store& store) {
  return *Store::Impl::Of(store).connection;
}
}  // namespace internal

std::int64_t Store::RoundTrips() const { return impl_->connection->RoundTrips(); }

sqlite3* Store::SqliteHandle() const { return impl_->db ? impl_->db->getHandle() : nullptr; }

store::Connection& store::ConnectionOf(Store& s) { return internal::StoreAccess::Connection(s); }
store::Connection& store::ConnectionOf(const Store& s) {
  return internal::StoreAccess::Connection(s);
}

namespace {

using internal::EmbeddedMigrations;
using internal::Migrator;

// A write interrupted in rollback-journal mode (a killed migration) leaves a
// hot journal that only a read-write connection can roll back. A read-only
// opener rolls it back first when it may write the file, as any SQLite
// opener would; otherwise it is told how to recover.
Status RecoverHotJournal(const std::string& path) {
  std::error_code ec;
  if (path == ":memory:" || !std::filesystem::exists(path + "-journal", ec)) return Status::Ok();
  try {
    SQLite::Database recover(path, SQLite::OPEN_READWRITE);
    recover.execAndGet("SELECT count(*) FROM sqlite_master");  // rolls the journal back
  } catch (const SQLite::Exception& e) {
    return Status::ReadOnly(fmt::format(
        "{}: an interrupted write left {}-journal, which must be rolled back before the store "
        "can be read, and this user cannot write the store ({}): run any hwrec command on it as "
        "a user who can write it",
        path, path, e.what()));
  }
  return Status::Ok();
}

// A migration moves rows on a rollback journal; one killed midway leaves the
// store so. Any open that may write the file, read-only ones included, puts
// WAL back, so that readers and the writer stop blocking each other. A file
// that is not an hwrec store, or that this user cannot write, is left as is.
void RestoreWal(const std::string& path) {
  if (path == ":memory:" || access(path.c_str(), W_OK) != 0) return;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (access(parent.empty() ? "." : parent.c_str(), W_OK) != 0) return;  // no room for -wal
  try {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    KeepWalOnClose(db);
    if (db.execAndGet("PRAGMA journal_mode").getString() == "wal") return;
    if (!db.tableExists("schema_migrations")) return;
    db.exec("PRAGMA journal_mode = WAL");
  } catch (const SQLite::Exception&) {
    // Another connection holds it, or it cannot be written after all: `hwrec
    // status` shows the journal mode, and the next writer restores it.
  }
}

// Turns WAL journaling on. Connections that switch a new file at once can
// each hold the shared lock the other needs: SQLite answers one of them busy
// at once rather than wait (its deadlock rule), and the statement, once
// finished, lets the other through; so a busy answer is tried again, within
// the connection's busy timeout.
std::string SwitchToWal(SQLite::Database& db, int busy_timeout_ms) {
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(busy_timeout_ms, 0));
  for (int pause_ms = 1;; pause_ms = std::min(pause_ms * 2, 50)) {
    try {
      return db.execAndGet("PRAGMA journal_mode = WAL").getString();
    } catch (const SQLite::Exception& e) {
      if ((e.getErrorCode() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > give_up)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }
}

Status ApplyConnectionSettings(SQLite::Database& db, const std::string& path,
                               const StoreOptions& options) {
  KeepWalOnClose(db);
  db.exec("PRAGMA foreign_keys = ON");
  if (options.cache_mib > 0) {
    // PRAGMA takes no bound parameters; the size is an int (negative: KiB).
    db.exec(fmt::format("PRAGMA cache_size = {:d}", -std::int64_t{options.cache_mib} * 1024));
  }
  if (options.read_only) return Status::Ok();
  const std::string mode = SwitchToWal(db, options.busy_timeout_ms);
  const bool in_memory = path == ":memory:" && mode == "memory";  // tests and previews
  if (mode != "wal" && !in_memory) {
    return Status::IoError(fmt::format(
        "{}: SQLite refused WAL journaling (journal_mode is '{}'): put the store on a local "
        "file system that supports shared memory",
        path, mode));
  }
  db.exec("PRAGMA synchronous = NORMAL");
  return Status::Ok();
}

// After a store is recognised, on either engine: an empty one goes straight to
// the latest schema; any other must be at the schema this build knows, unless
// it is opened read-only to inspect it (the problem is then kept, not refused).
Status SettleSchema(Migrator& migrator, bool empty, const StoreOptions& options,
                    const std::string& shown, std::string* schema_problem) {
  if (empty) {
    auto applied = migrator.ApplyPending();
    if (!applied.ok()) return applied.status();
  }
  if (Status s = migrator.Check(); !s.ok()) {
    if (!options.read_only || !options.inspect_schema)
      return Status::SchemaMismatch(shown + ": " + s.message());
    *schema_problem = s.message();
  }
  return Status::Ok();
}

}  // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, const StoreOptions& options) {
  if (options.busy_timeout_ms < 0) {
    return Status::InvalidArgument(fmt::format(
        "busy_timeout_ms is {}: give 0 (fail at once when another writer holds the store) or "
        "more milliseconds",
        options.busy_timeout_ms));
  }
  if (store::IsPostgresqlUri(path)) return Impl::OpenPostgresql(path, options);
  const bool create = options.create_if_missing && !options.read_only;
  if (path == ":memory:" && !create) {
    return Status::InvalidArgument(
        ":memory: holds a store only while it is open: use it with create_if_missing for a "
        "scratch store, or give the path of a store file");
  }
  if (path != ":memory:") {
    if (Status s = internal::CheckStorePath(path, create); !s.ok()) return s;
  }
  try {
    return Impl::OpenRecognised(path, options);
  } catch (const SQLite::Exception& e) {
    if (options.read_only) {
      if (auto unsafe = internal::ImmutableWouldMislead(path)) return Status::ReadOnly(*unsafe);
    }
    return internal::DescribeOpenFailure(path, e);
  } catch (const std::exception& e) {
    return Status::Internal(path + ": " + e.what());
  }
}

// Opens the connection. A read-only open whose WAL index cannot be made (a
// directory this user cannot write, a read-only mount) retries immutable.
std::unique_ptr<Store::Impl> Store::Impl::Connect(const std::string& path,
                                                  const StoreOptions& options) {
  // A Store is used from one thread at a time, so SQLite need not lock the
  // connection around every call (multi-thread mode).
  // A store is created only at a path that is no link (CheckStorePath): the
  // open refuses one that appeared since.
  const bool create = options.create_if_missing && !options.read_only;
  const int flags =
      SQLite::OPEN_NOMUTEX |
      (options.read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE) |
      (create ? SQLite::OPEN_NOFOLLOW : 0);
  auto impl = std::make_unique<Impl>(path, path, flags, options);
  if (!options.read_only) return impl;
  std::string failure;
  try {
    impl->db->execAndGet("SELECT count(*) FROM sqlite_master");
    return impl;
  } catch (const SQLite::Exception& e) {
    if (!internal::MayOpenImmutable(e.getExtendedErrorCode())) throw;
    // Immutable reads the main file alone: never when it would show a killed
    // writer's half-done pages or leave committed changes unread.
    if (internal::ImmutableWouldMislead(path)) throw;  // Open says why
    failure = e.what();
  }
  impl =
      std::make_unique<Impl>(path, internal::ImmutableUri(path), flags | SQLite::OPEN_URI, options);
  impl->db->execAndGet("SELECT count(*) FROM sqlite_master");
  impl->immutable_reason = internal::ImmutableReason(path, failure);
  return impl;
}

// Nothing that writes runs before the file is recognised as an hwrec store
// (or an empty database that may be created).
Result<std::unique_ptr<Store>> Store::Impl::OpenRecognised(const std::string& path,
                                                           const StoreOptions& options) {
  const bool create = options.create_if_missing && !options.read_only;
  const bool repair = options.read_only && !options.no_repair;
  if (repair) {
    if (Status s = RecoverHotJournal(path); !s.ok()) return s;
  }
  std::unique_ptr<Impl> impl = Connect(path, options);
  SQLite::Database& db = *impl->db;
  auto kind = internal::RecognizeStore(db, path);
  if (!kind.ok()) return kind.status();
  const bool empty = *kind == internal::DatabaseKind::kEmpty;
  if (empty && !create) {
    return Status::NotFound(
        fmt::format("no hwrec store at {} (the SQLite database is empty): create it with {}", path,
                    RemedyText(Remedy::kInit, path)));
  }
  if (!options.read_only && path != ":memory:") {
    if (Status s = internal::CheckCanWrite(db, path); !s.ok()) return s;
  }
  if (repair && impl->immutable_reason.empty()) RestoreWal(path);
  if (Status s = ApplyConnectionSettings(db, path, options); !s.ok()) return s;

  Migrator migrator(db, EmbeddedMigrations());
  if (Status s = SettleSchema(migrator, empty, options, path, &impl->schema_problem); !s.ok())
    return s;
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

const std::string& Store::path() const { return impl_->path; }
bool Store::read_only() const { return impl_->options.read_only; }

int Store::schema_version() const {
  return Migrator(*impl_->connection, EmbeddedMigrations(impl_->connection->engine()))
      .CurrentVersion();
}

int Store::LatestSchemaVersion() {
  const auto& migrations = EmbeddedMigrations();
  return migrations.empty() ? 0 : migrations.back().version;
}

Result<std::vector<MigrationInfo>> Store::Migrations() const {
  return internal::Guarded(
      impl_->path, [&]() -> Result<std::vector<MigrationInfo>> { return Migrator(*this).List(); });
}

Status Store::CheckWritable() const {
  if (read_only()) {
    return Status::ReadOnly(
        fmt::format("{}: the store was opened read-only: open it read-write "
                    "to change it",
                    impl_->path));
  }
  return internal::Guarded(impl_->path, [&]() -> Status {
    const int current = schema_version();
    const int latest = LatestSchemaVersion();
    if (const std::int64_t rows = internal::LegacyRowCount(*impl_->connection); rows > 0) {
      return Status::SchemaMismatch(internal::LegacyConsentText(impl_->path, rows));
    }
    if (current < latest) {
      return Status::SchemaMismatch(
          fmt::format("{}: store is at schema {} but this build writes schema {}: preview with "
                      "{}, then run {}",
                      impl_->path, current, latest, RemedyText(Remedy::kMigrateDryRun, impl_->path),
                      RemedyText(Remedy::kMigrate, impl_->path)));
    }
    return Status::Ok();
  });
}

}  // namespace hwrec

namespace hwrec {

// A PostgreSQL database (its current schema, search_path's first) holds a
// store when it has schema_migrations; an empty one is made a store only with
// create_if_missing. Read-only opens make every transaction READ ONLY.
Result<std::unique_ptr<Store>> Store::Impl::OpenPostgresql(const std::string& uri,
                                                           const StoreOptions& options) {
  const std::string shown = store::RedactedUri(uri);
  return internal::Guarded(shown, [&]() -> Result<std::unique_ptr<Store>> {
    auto impl =
        std::make_unique<Impl>(shown, options, store::ConnectPostgresql(uri, options.read_only));
    store::Connection& session = *impl->connection;
    const std::optional<std::string> schema = session.QueryText("SELECT current_schema()");
    if (!schema) {
      return Status::NotFound(fmt::format(
          "{}: no schema of the search_path exists in this database: create it (CREATE SCHEMA) "
          "or name an existing one",
          shown));
    }
    const std::int64_t tables =
        session
            .QueryInt64(
                "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = "
                "current_schema()")
            .value_or(0);
    const bool create = options.create_if_missing && !options.read_only;
    if (tables == 0 && !create) {
      return Status::NotFound(
          fmt::format("no hwrec store at {} (schema {} is empty): create it with {}", shown,
                      *schema, RemedyText(Remedy::kInit, shown)));
    }
    if (tables > 0 && !session.HasTable("schema_migrations")) {
      return Status::InvalidArgument(fmt::format(
          "{}: schema {} holds tables but no schema_migrations: it is not an hwrec store; name "
          "an empty schema or one hwrec made (search_path)",
          shown, *schema));
    }
    Migrator migrator(session, EmbeddedMigrations(store::Engine::kPostgresql));
    if (Status s = SettleSchema(migrator, tables == 0, options, shown, &impl->schema_problem);
        !s.ok())
      return s;
    return std::unique_ptr<Store>(new Store(std::move(impl)));
  });
}

}  // namespace hwrec
