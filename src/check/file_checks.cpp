// The checks of the file itself: SQLite's integrity and foreign-key checks
// (a PostgreSQL store skips them: the server checks its own pages and
// references), and the schema against what this build's migrations create.
#include <fmt/format.h>

#include <map>
#include <regex>
#include <stdexcept>

#include "check/findings.h"
#include "hwrec/store.h"
#include "store/guarded.h"

namespace hwrec::internal {

namespace {

// Root page -> table or index name, to say where SQLite's findings are.
std::map<long long, std::string> RootPages(store::Connection& db) {
  std::map<long long, std::string> pages;
  try {
    const auto query = db.Prepare("SELECT rootpage, type || ' ' || name FROM sqlite_master");
    while (query->Step()) pages[query->Int64(0)] = query->String(1);
  } catch (const std::exception&) {
    // The schema itself is unreadable: the findings stay as SQLite words them.
  }
  return pages;
}

// Adds what `PRAGMA integrity_check` (of one table, or of all) reports;
// throws when SQLite stops at a page it cannot read.
void IntegrityOf(store::Connection& db, const std::string& table,
                 const std::map<long long, std::string>& pages, Findings* findings) {
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
    findings->Add(table.empty() ? line : fmt::format("table {}: {}", table, line));
  }
}

// type+name -> SQL of every table, index, view and trigger.
std::map<std::string, std::string> SchemaObjects(store::Connection& db) {
  std::map<std::string, std::string> objects;
  const auto query = db.Prepare(
      "SELECT type || ' ' || name, sql FROM sqlite_master WHERE sql IS NOT "
      "NULL AND name NOT LIKE 'sqlite_%'");
  while (query->Step()) objects[query->String(0)] = query->String(1);
  return objects;
}

}  // namespace

void CheckIntegrity(store::Inspection& file, CheckResult*, Findings* findings) {
  store::Connection& db = file.connection();
  const auto pages = RootPages(db);
  try {
    IntegrityOf(db, "", pages, findings);
    return;
  } catch (const std::exception& e) {
    if (!IsDamage(e)) throw;
  }
  // SQLite stopped at an unreadable page: table by table, to say where.
  bool named = false;
  for (const auto& [page, name] : pages) {
    if (name.rfind("table ", 0) != 0 || name.find('"') != std::string::npos) continue;
    const std::string table = name.substr(6);
    try {
      IntegrityOf(db, table, pages, findings);
    } catch (const std::exception& e) {
      findings->Add(fmt::format("table {} cannot be read: {}", table, e.what()));
      named = true;
    }
  }
  if (!named && findings->empty()) findings->Add("SQLite stopped at a page it cannot read");
}

void CheckForeignKeys(store::Inspection& file, CheckResult*, Findings* findings) {
  const auto query = file.connection().Prepare("PRAGMA foreign_key_check");
  while (query->Step()) {
    const std::string row =
        query->IsNull(1) ? std::string("a row") : fmt::format("row {}", query->Int64(1));
    findings->Add(fmt::format("{} of {} names a {} row that does not exist", row, query->String(0),
                              query->String(2)));
  }
}

void CheckSchema(store::Inspection& file, CheckResult*, Findings* findings) {
  store::Connection& db = file.connection();
  const bool server = db.engine() == store::Engine::kPostgresql;
  if (Status s = file.CheckMigrations(); !s.ok()) findings->Add(s.message());
  const int version = file.SchemaVersion();
  const auto applied =
      db.Prepare("SELECT count(*), coalesce(max(version), 0) FROM schema_migrations");
  applied->Step();
  if (applied->Int(1) != version || applied->Int(0) != version) {
    findings->Add(fmt::format("{} is {}, but schema_migrations records {} migration(s) up to {}",
                              server ? "the schema version" : "PRAGMA user_version", version,
                              applied->Int(0), applied->Int(1)));
  }
  if (version != Store::LatestSchemaVersion()) return;
  StoreOptions scratch;
  scratch.create_if_missing = true;
  auto fresh = Store::Open(":memory:", scratch);  // what this build's migrations create
  if (!fresh.ok()) ThrowIfError(fresh.status());
  const auto expected = SchemaObjects(store::ConnectionOf(**fresh));
  if (server) {
    // PostgreSQL's DDL is its own dialect (migrations/postgresql/), and its
    // checksums were compared above: here every table and view must exist.
    for (const auto& [name, sql] : expected) {
      for (const std::string kind : {"table ", "view "}) {
        if (name.rfind(kind, 0) == 0 && !db.HasTable(name.substr(kind.size()))) {
          findings->Add(fmt::format("{} is missing", name));
        }
      }
    }
    return;
  }
  const auto actual = SchemaObjects(db);
  for (const auto& [name, sql] : expected) {
    const auto at = actual.find(name);
    if (at == actual.end()) {
      findings->Add(fmt::format("{} is missing", name));
    } else if (at->second != sql) {
      findings->Add(fmt::format("{} differs from what the migrations create", name));
    }
  }
}

}  // namespace hwrec::internal
