// Recording the chosen request: the `placements` table.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "base/status_error.h"
#include "base/time.h"
#include "hwrec/placement.h"
#include "hwrec/placement_record.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::StatusError;

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
// the decision; the row's own columns are named with the table, as
// PostgreSQL asks beside excluded's.
std::string UpsertSql() {
  std::string columns = kColumns;
  auto qualified = [&](const std::string& table) {
    std::string out;
    for (std::size_t start = 0; start < columns.size();) {
      const std::size_t end = std::min(columns.find(", ", start), columns.size());
      out += (start == 0 ? "" : ", ") + table + "." + columns.substr(start, end - start);
      start = end + 2;
    }
    return out.substr(0, out.rfind(", " + table + ".placed_at"));  // the decision
  };
  return fmt::format(
      "INSERT INTO placements ({0}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?) ON CONFLICT (execution_id) DO UPDATE SET ({0}) = ({1}, excluded.placed_at) "
      "WHERE ({2}) IS DISTINCT FROM ({1})",
      columns, qualified("excluded"), qualified("placements"));
}

std::int64_t Upsert(store::Connection& db, const std::string& execution_id,
                    const PlacementResult& result, const CandidateEvaluation& chosen) {
  const auto insert = db.Prepare(UpsertSql());
  const EffectiveRequest& r = chosen.request;
  insert->Bind(1, execution_id);
  insert->Bind(2, result.workload);
  insert->Bind(3, chosen.node_pool_id);
  insert->Bind(4, ToString(result.policy));
  insert->Bind(5, static_cast<std::int64_t>(r.gpu_count));
  insert->Bind(6, r.gpu_config_id);
  insert->Bind(7, r.gpu_memory_gb);
  insert->Bind(8, r.gpu_compute_fraction);
  insert->Bind(9, r.cpu_request_millicores);
  insert->Bind(10, r.cpu_limit_millicores);
  insert->Bind(11, r.memory_bytes);
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const int column = kFirstProvenanceColumn + 2 * static_cast<int>(f);
    insert->Bind(column, std::string(ToString(r.origins[f])));
    insert->Bind(column + 1, static_cast<std::int64_t>(r.origins[f].samples));
  }
  insert->Bind(22, internal::NowEpochSeconds());
  insert->Run();
  const auto id = db.Prepare("SELECT id FROM placements WHERE execution_id = ?");
  id->Bind(1, execution_id);
  if (!id->Step()) {
    throw StatusError(
        Status::Internal("record placement: a placement was neither written nor found"));
  }
  return id->Int64(0);
}

PlacementRecord ReadRecord(const store::Statement& row) {
  PlacementRecord out;
  out.id = row.Int64(0);
  out.execution_id = row.String(1);
  out.workload = row.String(2);
  out.node_pool_id = row.String(3);
  out.policy = ParsePlacementPolicy(row.String(4)).value_or(PlacementPolicy::kBestFit);
  EffectiveRequest& r = out.request;
  r.gpu_count = row.Int64(5);
  r.gpu_config_id = row.OptionalText(6);
  r.gpu_memory_gb = row.OptionalDouble(7);
  r.gpu_compute_fraction = row.OptionalDouble(8);
  r.cpu_request_millicores = row.OptionalInt64(9);
  r.cpu_limit_millicores = row.OptionalInt64(10);
  r.memory_bytes = row.OptionalInt64(11);
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const int column = kFirstProvenanceColumn + 2 * static_cast<int>(f);
    const auto origin = ParseFigureOrigin(row.String(column), row.Int64(column + 1));
    if (!origin) {
      throw StatusError(
          Status::Internal("list placements: a placements row has an unknown provenance"));
    }
    r.origins[f] = *origin;
  }
  out.placed_at = row.Double(22);
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
    store::Connection& db = store::ConnectionOf(store);
    std::int64_t id = 0;
    store::RunWrite(db, [&] {
      store::WriteTransaction tx(db);
      id = Upsert(db, execution_id, result, *chosen);
      tx.Commit();
    });
    return id;
  });
}

Result<std::vector<PlacementRecord>> ListPlacements(const Store& store,
                                                    const std::string& execution_id) {
  return internal::Guarded(store, "list placements", [&]() -> Result<std::vector<PlacementRecord>> {
    const auto select = store::ConnectionOf(store).Prepare(fmt::format(
        "SELECT id, {} FROM placements WHERE execution_id = ? ORDER BY placed_at, id", kColumns));
    select->Bind(1, execution_id);
    std::vector<PlacementRecord> out;
    while (select->Step()) out.push_back(ReadRecord(*select));
    return out;
  });
}

}  // namespace hwrec
