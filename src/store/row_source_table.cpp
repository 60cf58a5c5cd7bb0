#include "store/row_source_table.h"

#include <SQLiteCpp/Exception.h>

#include "store/sqlite_connection.h"

#include <sqlite3.h>

#include <memory>
#include <new>
#include <stdexcept>

namespace hwrec::internal {

struct RowSourceTable::Definition {
  std::string declaration;  // CREATE TABLE x(...), for sqlite3_declare_vtab
  std::size_t columns = 0;
  const RowSource* source = nullptr;
};

namespace {

using Definition = RowSourceTable::Definition;

struct Table {
  sqlite3_vtab base{};  // first: SQLite casts between the two
  const Definition* definition = nullptr;
};

struct Cursor {
  sqlite3_vtab_cursor base{};  // first, as above
  const RowSource* source = nullptr;
  std::size_t row = 0;
  std::vector<SqlValue> values;  // the current row's, filled once per row

  // Moves to `row` and fills its values. No exception crosses into SQLite.
  int Seek(std::size_t to) {
    row = to;
    if (row >= source->RowCount()) return SQLITE_OK;
    try {
      source->Values(row, values.data());
    } catch (const std::exception& e) {
      return Fail(e.what());
    } catch (...) {
      return Fail("a row could not be read");
    }
    return SQLITE_OK;
  }

  int Fail(const char* message) {
    sqlite3_free(base.pVtab->zErrMsg);
    base.pVtab->zErrMsg = sqlite3_mprintf("%s", message);
    return SQLITE_ERROR;
  }
};

int Connect(sqlite3* db, void* client_data, int, const char* const*, sqlite3_vtab** out, char**) {
  const auto* definition = static_cast<const Definition*>(client_data);
  const int rc = sqlite3_declare_vtab(db, definition->declaration.c_str());
  if (rc != SQLITE_OK) return rc;
  // Readable from the statements hwrec prepares, never from a view or trigger.
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  auto* table = new (std::nothrow) Table;
  if (table == nullptr) return SQLITE_NOMEM;
  table->definition = definition;
  *out = &table->base;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  delete reinterpret_cast<Table*>(vtab);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  // A full scan in row order: the table has no index to offer.
  const auto* table = reinterpret_cast<const Table*>(vtab);
  const auto rows = static_cast<sqlite3_int64>(table->definition->source->RowCount());
  info->estimatedRows = rows;
  info->estimatedCost = static_cast<double>(rows) + 1;
  return SQLITE_OK;
}

int Open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  const Definition* definition = reinterpret_cast<const Table*>(vtab)->definition;
  std::unique_ptr<Cursor> cursor;
  try {
    cursor = std::make_unique<Cursor>();
    cursor->values.resize(definition->columns);
  } catch (...) {  // no exception crosses into SQLite
    return SQLITE_NOMEM;
  }
  cursor->source = definition->source;
  *out = &cursor.release()->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<Cursor*>(cursor);
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cursor, int, const char*, int, sqlite3_value**) {
  return reinterpret_cast<Cursor*>(cursor)->Seek(0);
}

int Next(sqlite3_vtab_cursor* vcursor) {
  auto* cursor = reinterpret_cast<Cursor*>(vcursor);
  return cursor->Seek(cursor->row + 1);
}

int Eof(sqlite3_vtab_cursor* vcursor) {
  const auto* cursor = reinterpret_cast<const Cursor*>(vcursor);
  return cursor->row >= cursor->source->RowCount() ? 1 : 0;
}

int Column(sqlite3_vtab_cursor* vcursor, sqlite3_context* context, int column) {
  const auto* cursor = reinterpret_cast<const Cursor*>(vcursor);
  const SqlValue& v = cursor->values[static_cast<std::size_t>(column)];
  switch (v.kind) {
    case SqlValue::Kind::kNull:
      sqlite3_result_null(context);
      break;
    case SqlValue::Kind::kInteger:
      sqlite3_result_int64(context, v.integer);
      break;
    case SqlValue::Kind::kReal:
      sqlite3_result_double(context, v.real);
      break;
    case SqlValue::Kind::kText:
      sqlite3_result_text(context, static_cast<const char*>(v.data), v.size, SQLITE_STATIC);
      break;
    case SqlValue::Kind::kBlob:
      sqlite3_result_blob(context, v.data, v.size, SQLITE_STATIC);
      break;
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<const Cursor*>(cursor)->row);
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only: no CREATE VIRTUAL TABLE, nothing in the schema
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = nullptr;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = Filter;
  m.xNext = Next;
  m.xEof = Eof;
  m.xColumn = Column;
  m.xRowid = Rowid;
  return m;
}

const sqlite3_module kModule = MakeModule();

void DeleteDefinition(void* definition) { delete static_cast<Definition*>(definition); }

}  // namespace

void BindValue(store::Statement& statement, int index, const SqlValue& value) {
  const std::string_view bytes(static_cast<const char*>(value.data),
                               static_cast<std::size_t>(value.size));
  switch (value.kind) {
    case SqlValue::Kind::kNull:
      statement.BindNull(index);
      break;
    case SqlValue::Kind::kInteger:
      statement.BindInt64(index, value.integer);
      break;
    case SqlValue::Kind::kReal:
      statement.BindDouble(index, value.real);
      break;
    case SqlValue::Kind::kText:
      statement.BindTextView(index, bytes);
      break;
    case SqlValue::Kind::kBlob:
      statement.BindBlobView(index, bytes);
      break;
  }
}

RowSourceTable::RowSourceTable(store::Connection& db, const std::string& name,
                               const std::vector<std::string>& columns, const RowSource* source)
    : db_(db), name_(name) {
  auto definition = std::make_unique<Definition>();
  definition->declaration = "CREATE TABLE x(";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) definition->declaration += ", ";
    definition->declaration += columns[i];
  }
  definition->declaration += ")";
  definition->columns = columns.size();
  definition->source = source;
  // sqlite3_create_module_v2 frees the definition with DeleteDefinition, even on failure.
  const int rc = sqlite3_create_module_v2(store::SqliteHandleOf(db), name.c_str(), &kModule,
                                          definition.release(), DeleteDefinition);
  if (rc != SQLITE_OK) throw SQLite::Exception(store::SqliteHandleOf(db), rc);
}

RowSourceTable::~RowSourceTable() {
  // A null module drops the registered one (and its eponymous table).
  sqlite3_create_module_v2(store::SqliteHandleOf(db_), name_.c_str(), nullptr, nullptr, nullptr);
}

}  // namespace hwrec::internal
