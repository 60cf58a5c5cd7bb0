#include "store/sqlite_connection.h"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <string>
#include <string_view>

namespace hwrec::store {

namespace {

[[noreturn]] void Throw(sqlite3* db, int rc) { throw SQLite::Exception(db, rc); }

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
    const int rc =
        sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_, nullptr);
    if (rc != SQLITE_OK) {
      SQLite::Exception error(db_, rc);
      sqlite3_finalize(statement_);
      throw error;
    }
  }
  ~SqliteStatement() override { sqlite3_finalize(statement_); }
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
  sqlite3_stmt* statement_ = nullptr;
};

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}

  Engine engine() const override { return Engine::kSqlite; }
  std::unique_ptr<Statement> Prepare(std::string_view sql) override {
    return std::make_unique<SqliteStatement>(db_, sql);
  }
  void Execute(std::string_view sql) override {
    const std::string text(sql);
    const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) Throw(db_, rc);
  }
  sqlite3* handle() const { return db_; }
  std::int64_t LastInsertId() const override { return sqlite3_last_insert_rowid(db_); }
  bool InTransaction() const override { return sqlite3_get_autocommit(db_) == 0; }
  void Begin(LockMode mode) override {
    Execute(mode == LockMode::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  void Commit() override { Execute("COMMIT"); }
  void RollbackQuietly() noexcept override {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
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

 private:
  sqlite3* db_;
  std::unique_ptr<Statement> data_version_;
};

}  // namespace

std::unique_ptr<Connection> MakeSqliteConnection(sqlite3* handle) {
  return std::make_unique<SqliteConnection>(handle);
}

sqlite3* SqliteHandleOf(Connection& connection) {
  return static_cast<SqliteConnection&>(connection).handle();
}

}  // namespace hwrec::store
