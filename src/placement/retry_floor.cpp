// The OOM-retry floor of a stored execution that ran out of memory
// (hwrec/placement.h RetryFloorAfterOom), and which pools hold it.
#include <fmt/format.h>

#include <cmath>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "base/units.h"
#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "placement/candidate.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

// What the execution requested and used of the memory that ran out.
struct OomRecord {
  std::string workload;
  ExecutionStatus status = ExecutionStatus::kSuccess;
  std::optional<double> requested, observed;
};

std::optional<OomRecord> ReadOomRecord(store::Connection& db, const std::string& execution_id) {
  const auto query = db.Prepare(
      "SELECT w.image, o.status, o.requested_memory_bytes, o.memory_peak_bytes, "
      "o.requested_gpu_memory_gb, o.gpu_memory_peak_gb FROM observations o "
      "JOIN workloads w ON w.id = o.workload_id WHERE o.execution_id = ?");
  query->Bind(1, execution_id);
  if (!query->Step()) return std::nullopt;
  OomRecord record;
  record.workload = query->String(0);
  record.status = ParseExecutionStatus(query->Text(1)).value_or(ExecutionStatus::kSuccess);
  const int column = record.status == ExecutionStatus::kGpuOom ? 4 : 2;
  record.requested = query->OptionalDouble(column);
  record.observed = query->OptionalDouble(column + 1);
  return record;
}

std::string Amount(ExecutionStatus status, double value) {
  if (status == ExecutionStatus::kGpuOom) return fmt::format("{:g} GiB", value);
  return fmt::format("{:.2f} GiB", value / internal::kGiB);
}

// Whether a node of `pool` holds `floor`.
RetryFloorOnPool OnPool(const std::string& id, const std::optional<NodePool>& pool,
                        const GpuCatalog& catalog, const OomRetryFloor& floor) {
  RetryFloorOnPool out;
  out.node_pool_id = id;
  if (!pool) {
    out.reason = fmt::format("node pool '{}' is not registered: register it with {}", id,
                             RemedyText(Remedy::kPoolsImport));
    return out;
  }
  const HardwareProfile& h = pool->hardware;
  if (floor.floor.memory_bytes) {
    const double need = static_cast<double>(*floor.floor.memory_bytes);
    if (!h.memory_bytes) {
      out.holds = true;
      out.reason = "holds it, as far as is known: the pool's node memory is not recorded";
    } else if (static_cast<double>(*h.memory_bytes) < need) {
      out.reason =
          fmt::format("a node has {:.2f} GiB memory; the retry needs at least {:.2f} GiB",
                      static_cast<double>(*h.memory_bytes) / internal::kGiB, need / internal::kGiB);
    } else {
      out.holds = true;
      out.reason = "holds it";
    }
    return out;
  }
  const double need = floor.floor.gpu_memory_gb.value_or(0);
  if (h.gpu_count.value_or(0) <= 0 && !h.gpu_mode) {
    out.reason = "this pool has no GPU";
    return out;
  }
  const GpuPartition* partition = nullptr;
  if (h.gpu_brand && h.gpu_model && h.gpu_mode) {
    partition = catalog.FindPartition(*h.gpu_brand, *h.gpu_model, *h.gpu_mode);
  }
  if (partition == nullptr) {
    out.holds = true;
    out.reason = "holds it, as far as is known: the size of this pool's GPU is unknown";
  } else if (partition->memory_gb < need) {
    out.reason = fmt::format("needs {:g} GiB GPU memory per GPU; this pool offers {}", need,
                             internal::PartitionWords(*partition));
  } else {
    out.holds = true;
    out.reason = "holds it";
  }
  return out;
}

}  // namespace

Result<OomRetryFloor> RetryFloorAfterOom(const Store& store, const std::string& execution_id,
                                         const std::vector<std::string>& node_pool_ids) {
  if (execution_id.empty()) {
    return Status::InvalidArgument(
        "execution_id is empty: give the id of the execution that "
        "ran out of memory");
  }
  return internal::Guarded(store.path(), [&]() -> Result<OomRetryFloor> {
    store::Connection& db = store::ConnectionOf(store);
    store::ReadSnapshot snapshot(db);  // the record, the settings and the pools as one state
    auto catalog = GpuCatalog::Load(store);
    if (!catalog.ok()) return catalog.status();
    const std::optional<OomRecord> record = ReadOomRecord(db, execution_id);
    if (!record) {
      return Status::NotFound(fmt::format(
          "execution_id '{}': no stored observation has it: ingest the execution's record "
          "first",
          execution_id));
    }
    if (record->status != ExecutionStatus::kOom && record->status != ExecutionStatus::kGpuOom) {
      return Status::InvalidArgument(fmt::format(
          "execution_id '{}': its status is {}, not oom or gpu_oom: only an execution that ran "
          "out of memory has a retry floor",
          execution_id, ToString(record->status)));
    }
    const bool gpu = record->status == ExecutionStatus::kGpuOom;
    const double factor = internal::LoadSettings(db).oom_bump_factor;
    const std::optional<double> bump =
        internal::OomBump(record->requested, record->observed, factor,
                          gpu ? internal::kOomGpuFloorGb : internal::kOomMemoryFloorBytes);
    if (!bump) {
      return Status::InvalidArgument(fmt::format(
          "execution_id '{}': it recorded neither the {} it requested nor its peak: the record "
          "must carry one to set a retry floor",
          execution_id, gpu ? "GPU memory" : "memory"));
    }
    // A byte count past 2^63 is a request in the wrong unit: no floor holds it.
    if (!gpu && !(*bump < 9.2e18)) {
      return Status::InvalidArgument(fmt::format(
          "execution_id '{}': its requested.memory_bytes × {:g} is {:.3g} bytes, more than any "
          "request can hold: the record's request is likely in the wrong unit (bytes are "
          "expected); place the retry with its memory_bytes declared instead",
          execution_id, factor, *bump));
    }
    OomRetryFloor out;
    out.execution_id = execution_id;
    out.workload = record->workload;
    out.status = record->status;
    if (gpu) {
      out.floor.gpu_memory_gb = std::ceil(*bump * 100 - 1e-9) / 100;  // 0.01 GiB, as figures
    } else {
      out.floor.memory_bytes = static_cast<std::int64_t>(std::ceil(*bump - 1e-9));
    }
    const double base = std::max(record->requested.value_or(0), record->observed.value_or(0));
    out.reason = fmt::format(
        "{}: max(requested {}, observed {}) × {:g} = {}{}{}", ToString(record->status),
        record->requested ? Amount(record->status, *record->requested) : "unknown",
        record->observed ? Amount(record->status, *record->observed) : "unknown", factor,
        Amount(record->status,
               gpu ? *out.floor.gpu_memory_gb : static_cast<double>(*out.floor.memory_bytes)),
        base * factor < *bump ? fmt::format(" (at least +{})", gpu ? "1 GiB" : "100 MiB") : "",
        gpu ? " per GPU" : "");
    for (const std::string& id : node_pool_ids) {
      auto pool = FindNodePool(store, id);
      if (!pool.ok()) return pool.status();
      out.pools.push_back(OnPool(id, *pool, *catalog, out));
    }
    return out;
  });
}

}  // namespace hwrec
