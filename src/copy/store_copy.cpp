// `hwrec copy`: a whole store into an empty one, in one destination
// transaction, checked before it commits (hwrec/store_copy.h).
#include "hwrec/store_copy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "base/decimal.h"
#include "base/status_error.h"
#include "check/findings.h"
#include "copy/table_rows.h"
#include "hwrec/remedy.h"
#include "store/database.h"
#include "store/guarded.h"
#include "store/legacy_history.h"

namespace hwrec {

namespace {

// Every table of the latest schema, each after the tables its foreign keys
// name (PostgreSQL checks a reference as the row is written).
constexpr const char* kTables[] = {
    "gpu_models",
    "gpu_partitions",
    "workloads",
    "node_pools",
    "config",
    "observations",
    "aggregates",
    "recommendations",
    "ingest_conflicts",
    "ingest_rejects",
    "placements",
    "router_gcp_machines",
    "router_intents",
    "router_gcp_attempts",
    "router_quota_blocks",
    "router_quotas",
    "router_runpod",
    "router_slurm_lanes",
    "legacy_migrations",
    "legacy_quarantine",
    "site_node_pools",
    "site_observations",
    "site_recommendations",
};
// Each engine's own record of the migrations it applied, with its checksums,
// and its own change counters (raised by its triggers as the copy writes).
constexpr const char* kNotCopied[] = {"schema_migrations", "store_changes"};

[[noreturn]] void Refuse(Status status) { throw internal::StatusError(std::move(status)); }

// The source must hold exactly the tables hwrec copy knows: a table added by
// a later migration must be added to kTables, not skipped.
void RequireKnownTables(const Store& source) {
  auto status = source.GetStatus();
  if (!status.ok()) Refuse(status.status());
  std::set<std::string> known(std::begin(kTables), std::end(kTables));
  known.insert(std::begin(kNotCopied), std::end(kNotCopied));
  for (const TableCount& t : status->tables) {
    if (known.erase(t.table) == 0) {
      Refuse(Status::Internal(fmt::format(
          "{} has a table '{}' that hwrec copy does not know: this build cannot copy it "
          "whole; report it",
          source.path(), t.table)));
    }
  }
  if (!known.empty()) {
    Refuse(Status::SchemaMismatch(fmt::format("{} has no table '{}': run {}", source.path(),
                                              *known.begin(),
                                              RemedyText(Remedy::kMigrate, source.path()))));
  }
}

void RequireCopyableSource(const Store& source) {
  if (source.schema_version() != Store::LatestSchemaVersion()) {
    Refuse(Status::SchemaMismatch(
        fmt::format("{} is at schema {} but a copy needs the latest ({}): run {} first",
                    source.path(), source.schema_version(), Store::LatestSchemaVersion(),
                    RemedyText(Remedy::kMigrate, source.path()))));
  }
  const std::int64_t legacy = internal::LegacyRowCount(store::ConnectionOf(source));
  if (legacy > 0) {
    Refuse(Status::SchemaMismatch(fmt::format(
        "{} holds {} legacy site-keyed row(s): legacy stores are SQLite files: migrate the file "
        "({}), then copy it",
        source.path(), legacy, RemedyText(Remedy::kMigrateAccept, source.path()))));
  }
  RequireKnownTables(source);
}

// The rows a fresh store holds (the migrations' seeds), per table.
std::vector<std::vector<std::string>> FreshRows() {
  StoreOptions options;
  options.create_if_missing = true;
  auto fresh = Store::Open(":memory:", options);
  if (!fresh.ok()) Refuse(fresh.status());
  std::vector<std::vector<std::string>> rows;
  for (const char* table : kTables) {
    rows.push_back(internal::TableRows(store::ConnectionOf(**fresh), table));
  }
  return rows;
}

// Refuses a destination holding any row a fresh store does not, then empties
// it of the seeds (children first) so that the source's rows replace them.
void ClearFreshDestination(store::Connection& to, const std::string& path) {
  const std::vector<std::vector<std::string>> fresh = FreshRows();
  for (std::size_t t = 0; t < std::size(kTables); ++t) {
    const std::vector<std::string> held = internal::TableRows(to, kTables[t]);
    if (held != fresh[t]) {
      Refuse(Status::Conflict(fmt::format(
          "{} already holds data (table {}: {} row(s), a fresh store has {}): copy into a new "
          "file or a fresh store ({}); nothing was written",
          path, kTables[t], held.size(), fresh[t].size(), RemedyText(Remedy::kInit))));
    }
  }
  for (std::size_t t = std::size(kTables); t-- > 0;) {
    if (!fresh[t].empty()) to.Execute(std::string("DELETE FROM ") + kTables[t]);
  }
}

void BindValue(store::Statement& insert, int index, const store::Statement& row, int column) {
  switch (row.Kind(column)) {
    case store::ValueKind::kNull:
      insert.BindNull(index);
      break;
    case store::ValueKind::kInteger:
      insert.BindInt64(index, row.Int64(column));
      break;
    case store::ValueKind::kReal:
      insert.BindDouble(index, row.Double(column));
      break;
    case store::ValueKind::kText:
      insert.BindText(index, row.Text(column));
      break;
    case store::ValueKind::kBlob:
      insert.BindBlob(index, row.Blob(column));
      break;
  }
}

// The current row by its id, or by its first column when it has none.
std::string RowName(const store::Statement& row) {
  for (int c = 0; c < row.ColumnCount(); ++c) {
    if (row.ColumnName(c) == "id") return fmt::format("the row of id {}", row.Int64(c));
  }
  return fmt::format("the row of {} '{}'", row.ColumnName(0), row.String(0));
}

// PostgreSQL rounds a fraction written to a whole-number column without a
// word (1500.7 becomes 1501); SQLite keeps it (a legacy quarantine keeps such
// a value as it was read). A whole number is bound as one; any other is refused.
void RequireWholeNumbers(const store::Statement& row, const std::string& table,
                         const std::vector<bool>& whole) {
  for (int c = 0; c < row.ColumnCount(); ++c) {
    if (!whole[static_cast<std::size_t>(c)] || row.Kind(c) != store::ValueKind::kReal) continue;
    const double value = row.Double(c);
    if (internal::IsWholeInt64(value)) continue;
    const std::string what =
        std::floor(value) == value
            ? fmt::format("beyond the whole numbers a PostgreSQL column keeps ({})",
                          internal::kWholeInt64Range)
            : std::string("which PostgreSQL keeps as whole numbers only");
    Refuse(Status::InvalidArgument(
        fmt::format("table {}, {}: column {} holds {}, {}: mend the value in the source "
                    "(sqlite3; a legacy_quarantine row can also be deleted), then copy again; "
                    "nothing was written",
                    table, RowName(row), row.ColumnName(c), value, what)));
  }
}

// Copies one table's rows; returns how many.
std::int64_t CopyTable(store::Connection& from, store::Connection& to, const std::string& table) {
  const auto rows = from.Prepare("SELECT * FROM " + table);
  std::unique_ptr<store::Statement> insert;
  std::int64_t copied = 0;
  bool has_id = false;
  std::vector<bool> whole;  // per column: whole numbers only at the destination
  while (rows->Step()) {
    if (!insert) {
      const std::set<std::string> whole_columns = to.WholeNumberColumns(table);
      std::string columns;
      std::string marks;
      for (int c = 0; c < rows->ColumnCount(); ++c) {
        columns += (c > 0 ? ", " : "") + rows->ColumnName(c);
        marks += c > 0 ? ", ?" : "?";
        has_id = has_id || rows->ColumnName(c) == "id";
        whole.push_back(whole_columns.count(rows->ColumnName(c)) != 0);
      }
      insert = to.Prepare(fmt::format("INSERT INTO {} ({}) VALUES ({})", table, columns, marks));
    }
    RequireWholeNumbers(*rows, table, whole);
    for (int c = 0; c < rows->ColumnCount(); ++c) BindValue(*insert, c + 1, *rows, c);
    try {
      insert->Run();
    } catch (const store::EngineError& e) {
      // SQLite keeps a value of another type than its column's (a legacy
      // quarantine keeps such values as they were read); PostgreSQL refuses it.
      if (e.sqlstate() != "42804" && e.sqlstate().rfind("22", 0) != 0) throw;
      Refuse(Status::InvalidArgument(fmt::format(
          "table {}, {}: {}: mend the value in the source (sqlite3; a legacy_quarantine row can "
          "also be deleted), then copy again; nothing was written",
          table, RowName(*rows), e.what())));
    }
    ++copied;
  }
  // Rows written with their ids: the next insert must not reuse a copied id.
  if (has_id) to.FollowWrittenIds(table);
  return copied;
}

// Inside the destination's transaction, before it commits: each count equals
// the source's, and the aggregates equal the source's and a rebuild.
std::int64_t VerifyCopy(store::Connection& from, store::Connection& to, const CopySummary& summary,
                        const CopyOptions& options) {
  for (const TableCount& t : summary.tables) {
    const std::int64_t source_rows = internal::TableRowCount(from, t.table);
    const std::int64_t written = internal::TableRowCount(to, t.table);
    if (source_rows != t.rows || written != t.rows) {
      Refuse(Status::Internal(fmt::format(
          "table {}: the source has {} rows, {} were copied and the destination holds {}: "
          "nothing was written",
          t.table, source_rows, t.rows, written)));
    }
  }
  if (internal::TableRows(from, "aggregates") != internal::TableRows(to, "aggregates")) {
    Refuse(Status::Internal(
        "the copied aggregates differ from the source's: nothing was written; report it"));
  }
  CheckResult result;
  internal::Findings findings(&result, options.max_problems);
  const std::size_t checked = internal::CompareAggregatesWithRebuild(to, &findings);
  if (!findings.empty()) {
    std::string problems;
    for (const std::string& p : result.problems) problems += "\n  " + p;
    Refuse(Status::Internal(fmt::format(
        "{} aggregate(s) differ from a rebuild from the observations, so nothing was written: "
        "check the source ({}) and rebuild its aggregates ({}), then copy again:{}",
        result.problem_count, RemedyText(Remedy::kCheck, summary.source),
        RemedyText(Remedy::kRefreshRebuild, summary.source), problems)));
  }
  return static_cast<std::int64_t>(checked);
}

}  // namespace

Result<CopySummary> CopyStore(const Store& source, Store& destination, const CopyOptions& options) {
  return internal::Guarded(
      destination, "copying " + source.path() + " to " + destination.path(),
      [&]() -> Result<CopySummary> {
        if (&source == &destination || source.path() == destination.path()) {
          return Status::InvalidArgument(fmt::format(
              "{} is both the source and the destination: copy into another store", source.path()));
        }
        RequireCopyableSource(source);
        if (Status writable = destination.CheckWritable(); !writable.ok()) return writable;
        store::Connection& from = store::ConnectionOf(source);
        store::Connection& to = store::ConnectionOf(destination);
        store::ReadSnapshot snapshot(from);
        CopySummary summary;
        summary.source = source.path();
        summary.destination = destination.path();
        store::RunWrite(
            to,
            [&] {
              store::WriteTransaction tx(to);
              ClearFreshDestination(to, destination.path());
              for (const char* table : kTables) {
                const std::int64_t rows = CopyTable(from, to, table);
                summary.tables.push_back({table, rows});
                summary.rows += rows;
              }
              summary.aggregates_checked = VerifyCopy(from, to, summary, options);
              tx.Commit();
            },
            [&] {
              summary.tables.clear();
              summary.rows = 0;
            });
        return summary;
      });
}

}  // namespace hwrec
