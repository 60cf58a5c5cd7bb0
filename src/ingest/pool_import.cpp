#include "hwrec/pool_import.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/line_reader.h"
#include "base/text.h"
#include "base/time.h"
#include "hardware/node_pool_rules.h"
#include "hardware/node_pool_table.h"
#include "hwrec/catalog.h"
#include "hwrec/runner.h"
#include "hwrec/store.h"
#include "record/pool_record.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

// Longest pool line read; a pool is a few hundred bytes.
constexpr std::size_t kMaxPoolLineBytes = 1048576;

void Count(internal::PoolChange change, PoolImportSummary* summary) {
  switch (change) {
    case internal::PoolChange::kRegistered:
      ++summary->registered;
      break;
    case internal::PoolChange::kUpdated:
      ++summary->updated;
      break;
    case internal::PoolChange::kUnchanged:
      ++summary->unchanged;
      break;
  }
}

// One line of the input, read before the write: its text, or the length of a
// line over the limit.
struct PoolLine {
  std::int64_t number = 0;
  std::string text;
  std::size_t truncated_length = 0;  // > 0: the line was over kMaxPoolLineBytes
};

// The pool id of a line that failed to parse, when the line says one under `key`.
std::string PoolIdOfLine(const std::string& line, const std::string& key) {
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_object()) {
    auto it = parsed.find(key);
    if (it != parsed.end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

// Reads, checks and writes one non-blank line; a store failure throws.
Status ImportLine(store::Connection& db, const GpuCatalog& catalog, const std::string& line,
                  std::int64_t number, RecordForm form, PoolImportSummary* summary) {
  internal::PoolRecord record = internal::ReadPoolRecord(line, form);
  NodePool pool;
  if (!record.error) {
    if (auto error = internal::ResolveNodePool(record.pool, catalog, &pool)) {
      record.error = record.Named(*error);
    }
  }
  if (record.error) {
    const std::string id = PoolIdOfLine(line, record.runner ? "id" : "node_pool_id");
    summary->errors.push_back({{number, record.error->field, record.error->reason}, id});
    return Status::Ok();
  }
  auto change = internal::WriteNodePool(db, pool, internal::NowEpochSeconds());
  if (!change.ok()) return change.status();
  Count(*change, summary);
  for (RecordError& w : record.warnings) {
    summary->warnings.push_back({{number, w.field, std::move(w.reason)}, pool.node_pool_id});
  }
  return Status::Ok();
}

}  // namespace

Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl) {
  return ImportNodePools(store, jsonl, RecordForm::kHwrec);
}

Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl, RecordForm form) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "importing node pools", [&]() -> Result<PoolImportSummary> {
    // Read first: a retried write imports the same lines again.
    std::vector<PoolLine> lines;
    std::string line;
    internal::LineReader reader(jsonl, kMaxPoolLineBytes);
    for (std::int64_t number = 1; reader.Next(&line); ++number) {
      if (reader.truncated()) {
        lines.push_back({number, "", reader.length()});
      } else if (!internal::Trim(line).empty()) {
        lines.push_back({number, std::move(line), 0});
      }
    }
    if (jsonl.bad()) return Status::IoError("reading the node pool lines failed");
    store::Connection& db = store::ConnectionOf(store);
    return store::RunWrite(db, [&]() -> Result<PoolImportSummary> {
      store::WriteTransaction tx(db);  // pools are checked against the catalog as it is now
      auto catalog = GpuCatalog::Load(store);
      if (!catalog.ok()) return catalog.status();
      PoolImportSummary summary;
      for (const PoolLine& pool_line : lines) {
        if (pool_line.truncated_length > 0) {
          summary.errors.push_back(
              {{pool_line.number, "json",
                fmt::format("the line is {} bytes, over the limit of {}: send one pool per line",
                            pool_line.truncated_length, kMaxPoolLineBytes)},
               ""});
          continue;
        }
        Status imported =
            ImportLine(db, *catalog, pool_line.text, pool_line.number, form, &summary);
        if (!imported.ok()) return imported;
      }
      tx.Commit();
      return summary;
    });
  });
}

}  // namespace hwrec
