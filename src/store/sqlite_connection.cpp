#include "store/sqlite_connection.h"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hwrec::store {

namespace {

[[noreturn]] void Throw(sqlite3* db, int rc) { throw SQLite::Exception(db, rc); }

// Prepared statements kept by their SQL for the next Prepare of the same
// text: preparing is most of a small transaction's work (a single-record
// ingest prepares about twenty statements, and SQLite's parser was half of
// its instructions). A statement comes back reset with its bindings cleared,
// as a fresh one is; idle statements hold no lock. Bounded, so SQL built per
// call cannot grow it without end.
class StatementCache {
 public:
  explicit StatementCache(sqlite3* db) : db_(db) {}
  StatementCache(const StatementCache&) = delete;
  StatementCache& operator=(const StatementCache&) = delete;
  ~StatementCache() { Close(); }

  // An idle statement of `sql`, or nullptr.
  sqlite3_stmt* Take(const std::string& sql) {
    auto it = idle_.find(sql);
    if (it == idle_.end() || it->second.empty()) return nullptr;
    sqlite3_stmt* statement = it->second.back();
    it->second.pop_back();
    return statement;
  }
  // Keeps `statement` of `sql` for reuse, or finalizes it.
  void Give(std::string sql, sqlite3_stmt* statement) {
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    if (!closed_) {
      try {
        auto it = idle_.find(sql);
        if (it == idle_.end() && idle_.size() < kMaxTexts) {
          it = idle_.emplace(std::move(sql), std::vector<sqlite3_stmt*>()).first;
        }
        if (it != idle_.end() && it->second.size() < kMaxPerText) {
          it->second.push_back(statement);
          return;
        }
      } catch (const std::bad_alloc&) {
        // Not kept: finalized below.
      }
    }
    sqlite3_finalize(statement);
  }
  // Finalizes what is idle; statements still in use are finalized when they
  // come back. Called before the connection's handle is closed.
  void Close() {
    for (auto& [sql, statements] : idle_) {
      for (sqlite3_stmt* statement : statements) sqlite3_finalize(statement);
    }
    idle_.clear();
    closed_ = true;
  }
  sqlite3* db() const { return db_; }

 private:
  static constexpr std::size_t kMaxTexts = 512;
  static constexpr std::size_t kMaxPerText = 4;

  sqlite3* db_;
  bool closed_ = false;
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> idle_;
};

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(std::shared_ptr<StatementCache> cache, std::string_view sql)
      : db_(cache->db()), cache_(std::move(cache)), sql_(sql) {
    statement_ = cache_->Take(sql_);
    if (statement_ != nullptr) return;
    const int rc =
        sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_, nullptr);
    if (rc != SQLITE_OK) {
      SQLite::Exception error(db_, rc);
      sqlite3_finalize(statement_);
      throw error;
    }
  }
  ~SqliteStatement() override {
    if (statement_ != nullptr) cache_->Give(std::move(sql_), statement_);
  }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindNull(int index) override { Check(sqlite3_bind_null(statement_, index)); }
  void BindInt64(int index, std::int64_t value) override {
    Check(sqlite3_bind_int64(statement_, index, value));
  }
  void BindDouble(int index, double value) override {
    Check(sqlite3_bind_double(statement_, index, value));
  }
  void BindText(int index, std::string_view value) override {
    Check(sqlite3_bind_text64(statement_, index, Data(value), value.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8));
  }
  void BindTextView(int index, std::string_view value) override {
    Check(sqlite3_bind_text64(statement_, index, Data(value), value.size(), SQLITE_STATIC,
                              SQLITE_UTF8));
  }
  void BindBlob(int index, std::string_view bytes) override {
    Check(sqlite3_bind_blob64(statement_, index, Data(bytes), bytes.size(), SQLITE_TRANSIENT));
  }
  void BindBlobView(int index, std::string_view bytes) override {
    Check(sqlite3_bind_blob64(statement_, index, Data(bytes), bytes.size(), SQLITE_STATIC));
  }

  bool Step() override {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sqlite3_reset(statement_);
    Throw(db_, rc);
  }
  std::int64_t Run() override {
    while (Step()) {
    }
    sqlite3_reset(statement_);
    return sqlite3_changes64(db_);
  }
  void Reset() override { sqlite3_reset(statement_); }
  void ClearBindings() override { sqlite3_clear_bindings(statement_); }

  int ColumnCount() const override { return sqlite3_column_count(statement_); }
  std::string ColumnName(int column) const override {
    const char* name = sqlite3_column_name(statement_, column);
    return name != nullptr ? name : "";
  }
  bool IsNull(int column) const override {
    return sqlite3_column_type(statement_, column) == SQLITE_NULL;
  }
  ValueKind Kind(int column) const override {
    switch (sqlite3_column_type(statement_, column)) {
      case SQLITE_INTEGER:
        return ValueKind::kInteger;
      case SQLITE_FLOAT:
        return ValueKind::kReal;
      case SQLITE_TEXT:
        return ValueKind::kText;
      case SQLITE_BLOB:
        return ValueKind::kBlob;
      default:
        return ValueKind::kNull;
    }
  }
  std::int64_t Int64(int column) const override { return sqlite3_column_int64(statement_, column); }
  double Double(int column) const override { return sqlite3_column_double(statement_, column); }
  std::string_view Text(int column) const override {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement_, column));
    return text != nullptr ? std::string_view(text, size) : std::string_view();
  }
  std::string_view Blob(int column) const override {
    const auto* bytes = static_cast<const char*>(sqlite3_column_blob(statement_, column));
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement_, column));
    return bytes != nullptr ? std::string_view(bytes, size) : std::string_view();
  }

 private:
  // Never null, so an empty value binds as empty text or blob rather than NULL.
  static const char* Data(std::string_view value) { return value.data() ? value.data() : ""; }
  void Check(int rc) const {
    if (rc != SQLITE_OK) Throw(db_, rc);
  }

  sqlite3* db_;
  std::shared_ptr<StatementCache> cache_;
  std::string sql_;
  sqlite3_stmt* statement_ = nullptr;
};

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db)
      : db_(db), statements_(std::make_shared<StatementCache>(db)) {}
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  ~SqliteConnection() override {
    data_version_.reset();
    for (auto& control : control_) control.reset();
    statements_->Close();
  }

  Engine engine() const override { return Engine::kSqlite; }
  std::unique_ptr<Statement> Prepare(std::string_view sql) override {
    return std::make_unique<SqliteStatement>(statements_, sql);
  }
  void Execute(std::string_view sql) override {
    const std::string text(sql);
    const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) Throw(db_, rc);
  }
  sqlite3* handle() const { return db_; }
  std::int64_t LastInsertId() const override { return sqlite3_last_insert_rowid(db_); }
  std::unique_ptr<Statement> PrepareInsert(std::string_view insert_sql,
                                           std::string_view /*id_column: the rowid*/) override {
    return Prepare(insert_sql);
  }
  std::optional<std::int64_t> RunInsert(Statement& insert) override {
    if (insert.Run() == 0) return std::nullopt;
    return LastInsertId();
  }
  bool InTransaction() const override { return sqlite3_get_autocommit(db_) == 0; }
  // Transaction control runs prepared statements, kept: a read snapshot
  // around one lookup would otherwise parse its BEGIN and ROLLBACK each time.
  void Begin(LockMode mode) override {
    Control(mode == LockMode::kDeferred ? kBegin : kBeginImmediate).Run();
  }
  void Commit() override { Control(kCommit).Run(); }
  void RollbackQuietly() noexcept override {
    if (sqlite3_get_autocommit(db_) != 0) return;
    try {
      Control(kRollback).Run();
    } catch (...) {  // as quiet as it says: a failed rollback leaves what SQLite left
    }
  }
  std::optional<Version> DataVersion() override {
    // data_version moves on other connections' commits; total_changes on ours.
    if (!data_version_) data_version_ = Prepare("PRAGMA data_version");
    data_version_->Reset();
    const std::int64_t others = data_version_->Step() ? data_version_->Int64(0) : 0;
    data_version_->Reset();
    return Version{others, static_cast<std::int64_t>(sqlite3_total_changes64(db_))};
  }
  bool HasTable(std::string_view name) override {
    auto statement =
        Prepare("SELECT 1 FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')");
    statement->Bind(1, name);
    return statement->Step();
  }

  Footprint ReadFootprint() override {
    Footprint footprint;
    footprint.engine = "sqlite";
    footprint.journal_mode = QueryText("PRAGMA journal_mode").value_or("");
    const char* file = sqlite3_db_filename(db_, "main");  // "" for a store in memory
    if (file != nullptr && *file != '\0') {
      std::error_code ec;
      const auto size = std::filesystem::file_size(file, ec);
      footprint.bytes = ec ? 0 : static_cast<std::int64_t>(size);
      const auto wal = std::filesystem::file_size(std::string(file) + "-wal", ec);
      footprint.log_bytes = ec ? 0 : static_cast<std::int64_t>(wal);
    }
    return footprint;
  }

  std::vector<std::string> TableNames() override {
    return QueryTexts(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name");
  }

 private:
  enum ControlStatement { kBegin, kBeginImmediate, kCommit, kRollback, kControlCount };
  Statement& Control(ControlStatement which) {
    static constexpr const char* kSql[kControlCount] = {"BEGIN", "BEGIN IMMEDIATE", "COMMIT",
                                                        "ROLLBACK"};
    std::unique_ptr<Statement>& control = control_[which];
    if (!control) control = Prepare(kSql[which]);
    return *control;
  }

  sqlite3* db_;
  std::shared_ptr<StatementCache> statements_;
  std::unique_ptr<Statement> data_version_;
  std::unique_ptr<Statement> control_[kControlCount];
};

}  // namespace

std::unique_ptr<Connection> MakeSqliteConnection(sqlite3* handle) {
  return std::make_unique<SqliteConnection>(handle);
}

sqlite3* SqliteHandleOf(Connection& connection) {
  return static_cast<SqliteConnection&>(connection).handle();
}

}  // namespace hwrec::store
