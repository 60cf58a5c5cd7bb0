// Built with SQLITE_ENABLE_SESSION (tools/CMakeLists.txt): the session API of
// Debian's libsqlite3, declared only then.
#include "bench/single_ceiling.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <utility>

namespace hwrec::bench {

namespace {

void Check(int rc, const char* what) {
  if (rc != SQLITE_OK) throw std::runtime_error(fmt::format("{}: {}", what, sqlite3_errstr(rc)));
}

// The tables of `db`, for the session to watch.
std::vector<std::string> Tables(SQLite::Database& db) {
  std::vector<std::string> out;
  SQLite::Statement q(db,
                      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                      "LIKE 'sqlite_%'");
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

std::vector<std::string> Columns(SQLite::Database& db, const std::string& table) {
  std::vector<std::string> out;
  SQLite::Statement q(db, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
  q.bind(1, table);
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

// Runs `statement` to its end and resets it; throws naming it on failure.
void Step(SQLite::Database& db, sqlite3_stmt* statement) {
  const int rc = sqlite3_step(statement);
  sqlite3_reset(statement);
  if (rc != SQLITE_DONE) {
    throw std::runtime_error(
        fmt::format("replaying {}: {}", sqlite3_sql(statement), sqlite3_errmsg(db.getHandle())));
  }
}

// Prepared statements by their SQL, for the replay.
class Statements {
 public:
  explicit Statements(sqlite3* db) : db_(db) {}
  Statements(const Statements&) = delete;
  Statements& operator=(const Statements&) = delete;
  ~Statements() {
    for (auto& [sql, statement] : prepared_) sqlite3_finalize(statement);
  }
  sqlite3_stmt* Get(const std::string& sql) {
    auto it = prepared_.find(sql);
    if (it != prepared_.end()) return it->second;
    sqlite3_stmt* statement = nullptr;
    Check(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), "prepare");
    prepared_.emplace(sql, statement);
    return statement;
  }

 private:
  sqlite3* db_;
  std::map<std::string, sqlite3_stmt*> prepared_;
};

// One change of a changeset: its statement and the values to bind, copied.
struct Write {
  sqlite3_stmt* statement = nullptr;
  std::vector<sqlite3_value*> values;  // sqlite3_value_dup copies, freed by Plan
};

// The statements a replay runs, prepared and bound before the clock starts.
class Plan {
 public:
  explicit Plan(SQLite::Database& db) : db_(db), statements_(db.getHandle()) {}
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    for (auto& writes : records_) {
      for (Write& w : writes) {
        for (sqlite3_value* v : w.values) sqlite3_value_free(v);
      }
    }
  }

  void AddRecord(const std::string& changeset) {
    std::vector<Write>& writes = records_.emplace_back();
    std::string copy = changeset;  // the iterator reads a mutable buffer
    sqlite3_changeset_iter* it = nullptr;
    Check(sqlite3changeset_start(&it, static_cast<int>(copy.size()), copy.data()),
          "changeset start");
    while (sqlite3changeset_next(it) == SQLITE_ROW) writes.push_back(WriteOf(it));
    sqlite3changeset_finalize(it);
  }
  const std::vector<std::vector<Write>>& records() const { return records_; }
  sqlite3_stmt* Statement(const std::string& sql) { return statements_.Get(sql); }

 private:
  Write WriteOf(sqlite3_changeset_iter* it) {
    const char* table = nullptr;
    int count = 0, op = 0, indirect = 0;
    Check(sqlite3changeset_op(it, &table, &count, &op, &indirect), "changeset op");
    unsigned char* pk = nullptr;
    Check(sqlite3changeset_pk(it, &pk, &count), "changeset pk");
    auto& names = columns_[table];
    if (names.empty()) names = Columns(db_, table);
    std::string sql;
    std::vector<sqlite3_value*> values;
    if (op == SQLITE_INSERT) {
      sql = fmt::format("INSERT INTO \"{}\" VALUES (", table);
      for (int c = 0; c < count; ++c) {
        sqlite3_value* v = nullptr;
        Check(sqlite3changeset_new(it, c, &v), "changeset new");
        sql += c == 0 ? "?" : ", ?";
        values.push_back(v);
      }
      sql += ")";
    } else {
      std::string set, where;
      std::vector<sqlite3_value*> set_values, key_values;
      for (int c = 0; c < count; ++c) {
        if (pk[c] != 0) {
          sqlite3_value* old_value = nullptr;
          Check(sqlite3changeset_old(it, c, &old_value), "changeset old");
          where += fmt::format("{}\"{}\" = ?", where.empty() ? "" : " AND ",
                               names[static_cast<std::size_t>(c)]);
          key_values.push_back(old_value);
        } else if (op == SQLITE_UPDATE) {
          sqlite3_value* new_value = nullptr;
          Check(sqlite3changeset_new(it, c, &new_value), "changeset new");
          if (new_value == nullptr) continue;  // unchanged
          set += fmt::format("{}\"{}\" = ?", set.empty() ? "" : ", ",
                             names[static_cast<std::size_t>(c)]);
          set_values.push_back(new_value);
        }
      }
      sql = op == SQLITE_UPDATE ? fmt::format("UPDATE \"{}\" SET {} WHERE {}", table, set, where)
                                : fmt::format("DELETE FROM \"{}\" WHERE {}", table, where);
      values = std::move(set_values);
      values.insert(values.end(), key_values.begin(), key_values.end());
    }
    Write write{statements_.Get(sql), {}};
    for (sqlite3_value* v : values) write.values.push_back(sqlite3_value_dup(v));
    return write;
  }

  SQLite::Database& db_;
  Statements statements_;
  std::map<std::string, std::vector<std::string>> columns_;
  std::vector<std::vector<Write>> records_;
};

}  // namespace

CapturedWrites CaptureWrites(Store& store, int records,
                             const std::function<void(int)>& ingest_one) {
  sqlite3* db = store.SqliteHandle();
  if (db == nullptr)
    throw std::runtime_error("the single-record ceiling needs a SQLite store file");
  const std::vector<std::string> tables = [&] {
    SQLite::Database schema(store.path(), SQLite::OPEN_READONLY);
    return Tables(schema);
  }();
  CapturedWrites out;
  std::int64_t rows = 0;
  for (int i = 0; i < records; ++i) {
    sqlite3_session* session = nullptr;
    Check(sqlite3session_create(db, "main", &session), "session");
    std::unique_ptr<sqlite3_session, void (*)(sqlite3_session*)> owned(session,
                                                                       sqlite3session_delete);
    for (const std::string& table : tables) {
      Check(sqlite3session_attach(session, table.c_str()), "session attach");
    }
    ingest_one(i);
    int size = 0;
    void* bytes = nullptr;
    Check(sqlite3session_changeset(session, &size, &bytes), "changeset");
    out.changesets.emplace_back(static_cast<const char*>(bytes), static_cast<std::size_t>(size));
    sqlite3_free(bytes);
    sqlite3_changeset_iter* it = nullptr;
    std::string& changes = out.changesets.back();
    Check(sqlite3changeset_start(&it, static_cast<int>(changes.size()), changes.data()),
          "changeset start");
    while (sqlite3changeset_next(it) == SQLITE_ROW) {
      const char* table = nullptr;
      int count = 0, op = 0, indirect = 0;
      Check(sqlite3changeset_op(it, &table, &count, &op, &indirect), "changeset op");
      ++out.rows_by_table[table];
      ++rows;
    }
    sqlite3changeset_finalize(it);
  }
  out.rows_per_record = records > 0 ? static_cast<double>(rows) / records : 0;
  return out;
}

std::vector<double> ReplayAsPreparedStatements(const std::string& path,
                                               const std::vector<std::string>& changesets) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  Plan plan(db);
  for (const std::string& changes : changesets) plan.AddRecord(changes);
  sqlite3_stmt* begin = plan.Statement("BEGIN IMMEDIATE");
  sqlite3_stmt* commit = plan.Statement("COMMIT");
  std::vector<double> laps;
  for (const std::vector<Write>& writes : plan.records()) {
    const auto started = std::chrono::steady_clock::now();
    Step(db, begin);
    for (const Write& w : writes) {
      for (std::size_t i = 0; i < w.values.size(); ++i) {
        Check(sqlite3_bind_value(w.statement, static_cast<int>(i + 1), w.values[i]), "bind");
      }
      Step(db, w.statement);
    }
    Step(db, commit);
    laps.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  return laps;
}

std::vector<std::string> TablesThatDiffer(const std::string& a, const std::string& b,
                                          const std::map<std::string, std::int64_t>& tables) {
  SQLite::Database db(a, SQLite::OPEN_READONLY);
  SQLite::Statement attach(db, "ATTACH DATABASE ? AS other");
  attach.bind(1, b);
  attach.exec();
  std::vector<std::string> differ;
  for (const auto& [table, rows] : tables) {
    // Table names come from the store's own schema, not from input.
    const std::string t = fmt::format("\"{}\"", table);
    const std::int64_t missing =
        db.execAndGet(fmt::format("SELECT count(*) FROM (SELECT * FROM main.{0} EXCEPT "
                                  "SELECT * FROM other.{0})",
                                  t))
            .getInt64();
    const std::int64_t extra =
        db.execAndGet(fmt::format("SELECT count(*) FROM (SELECT * FROM other.{0} EXCEPT "
                                  "SELECT * FROM main.{0})",
                                  t))
            .getInt64();
    if (missing != 0 || extra != 0) differ.push_back(table);
  }
  return differ;
}

}  // namespace hwrec::bench
