// Recording the chosen request: the `placements` table.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hwrec/placement.h"
#include "hwrec/store.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

using internal::BindOptional;
using internal::StoreAccess;

constexpr const char* kColumns =
    "execution_id, workload, node_pool_id, policy, gpu_count, gpu_config_id, gpu_memory_gb, "
    "gpu_compute_fraction, cpu_request_millicores, cpu_limit_millicores, memory_bytes, "
    "cpu_request_millicores_provenance, cpu_request_millicores_samples, "
    "cpu_limit_millicores_provenance, cpu_limit_millicores_samples, memory_bytes_provenance, "
    "memory_bytes_samples, gpu_memory_gb_provenance, gpu_memory_gb_samples, "
    "gpu_compute_fraction_provenance, gpu_compute_fraction_samples, placed_at";

// Provenance columns in FigureKind order, from the 12th column on (1-based).
constexpr int kFirstProvenanceColumn = 12;

// The upsert of an execution's placement: a new execution inserts; a re-record
// with the same decision changes nothing (not even placed_at); one with another
// decision replaces the row, keeping its id. The columns before placed_at are
// the decision.
std::string UpsertSql() {
  std::string columns = kColumns;
  std::string excluded;
  for (std::size_t start = 0; start < columns.size();) {
    const std::size_t end = std::min(columns.find(", ", start), columns.size());
    excluded += (start == 0 ? "excluded." : ", excluded.") + columns.substr(start, end - start);
    start = end + 2;
  }
  const std::size_t decision_end = columns.rfind(", placed_at");
  const std::size_t excluded_decision_end = excluded.rfind(", excluded.placed_at");
  return fmt::format(
      "INSERT INTO placements ({0}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?) ON CONFLICT (execution_id) DO UPDATE SET ({0}) = ({1}) WHERE ({2}) IS NOT "
      "({3})",
      columns, excluded, columns.substr(0, decision_end),
      excluded.substr(0, excluded_decision_end));
}

std::int64_t Upsert(SQLite::Database& db, const std::string& execution_id,
                    const PlacementResult& result, const CandidateEvaluation& chosen) {
  SQLite::Statement insert(db, UpsertSql());
  const EffectiveRequest& r = chosen.request;
  insert.bind(1, execution_id);
  insert.bind(2, result.workload);
  insert.bind(3, chosen.node_pool_id);
  insert.bind(4, std::string(ToString(result.policy)));
  insert.bind(5, static_cast<std::int64_t>(r.gpu_count));
  BindOptional(insert, 6, r.gpu_config_id);
  BindOptional(insert, 7, r.gpu_memory_gb);
  BindOptional(insert, 8, r.gpu_compute_fraction);
  BindOptional(insert, 9, r.cpu_request_millicores);
  BindOptional(insert, 10, r.cpu_limit_millicores);
  BindOptional(insert, 11, r.memory_bytes);
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const int column = kFirstProvenanceColumn + 2 * static_cast<int>(f);
    insert.bind(column, r.origins[f].Name());
    insert.bind(column + 1, static_cast<std::int64_t>(r.origins[f].samples));
  }
  insert.bind(22, internal::NowEpochSeconds());
  insert.exec();
  SQLite::Statement id(db, "SELECT id FROM placements WHERE execution_id = ?");
  id.bind(1, execution_id);
  if (!id.executeStep()) throw std::logic_error("a placement was neither written nor found");
  return id.getColumn(0).getInt64();
}

PlacementRecord ReadRecord(SQLite::Statement& row) {
  PlacementRecord out;
  out.id = row.getColumn(0).getInt64();
  out.execution_id = row.getColumn(1).getString();
  out.workload = row.getColumn(2).getString();
  out.node_pool_id = row.getColumn(3).getString();
  out.policy =
      ParsePlacementPolicy(row.getColumn(4).getString()).value_or(PlacementPolicy::kBestFit);
  EffectiveRequest& r = out.request;
  r.gpu_count = row.getColumn(5).getInt64();
  r.gpu_config_id = internal::ColumnOptionalText(row.getColumn(6));
  r.gpu_memory_gb = internal::ColumnOptionalDouble(row.getColumn(7));
  r.gpu_compute_fraction = internal::ColumnOptionalDouble(row.getColumn(8));
  r.cpu_request_millicores = internal::ColumnOptionalInt64(row.getColumn(9));
  r.cpu_limit_millicores = internal::ColumnOptionalInt64(row.getColumn(10));
  r.memory_bytes = internal::ColumnOptionalInt64(row.getColumn(11));
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const int column = kFirstProvenanceColumn + 2 * static_cast<int>(f);
    const auto origin = FigureOrigin::FromName(row.getColumn(column).getString(),
                                               row.getColumn(column + 1).getInt64());
    if (!origin) throw std::runtime_error("a placements row has an unknown provenance");
    r.origins[f] = *origin;
  }
  out.placed_at = row.getColumn(22).getDouble();
  return out;
}

}  // namespace

Result<std::int64_t> RecordPlacement(Store& store, const std::string& execution_id,
                                     const PlacementResult& result) {
  if (execution_id.empty()) {
    return Status::InvalidArgument("execution_id is empty: give the id of the execution placed");
  }
  const CandidateEvaluation* chosen = result.chosen_evaluation();
  if (chosen == nullptr || !chosen->feasible) {
    return Status::InvalidArgument(fmt::format(
        "nothing to record for execution '{}': no candidate pool fits (see each pool's reason)",
        execution_id));
  }
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "record placement", [&]() -> Result<std::int64_t> {
    SQLite::Database& db = StoreAccess::Db(store);
    internal::WriteTransaction tx(db);
    const std::int64_t id = Upsert(db, execution_id, result, *chosen);
    tx.Commit();
    return id;
  });
}

Result<std::vector<PlacementRecord>> ListPlacements(const Store& store,
                                                    const std::string& execution_id) {
  return internal::Guarded(store, "list placements", [&]() -> Result<std::vector<PlacementRecord>> {
    SQLite::Statement select(
        StoreAccess::Db(store),
        fmt::format("SELECT id, {} FROM placements WHERE execution_id = ? ORDER BY placed_at, id",
                    kColumns));
    select.bind(1, execution_id);
    std::vector<PlacementRecord> out;
    while (select.executeStep()) out.push_back(ReadRecord(select));
    return out;
  });
}

}  // namespace hwrec
