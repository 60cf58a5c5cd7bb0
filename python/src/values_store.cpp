// Result values of the store, pools, ingest and catalog calls.
#include <pybind11/stl.h>

#include "binding.h"
#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"
#include "values.h"

namespace hwrec::python {

py::dict ProfileDict(const HardwareProfile& profile) {
  // All nine fields, absent ones as None, in the order of the JSON form.
  return py::module_::import("json").attr("loads")(HardwareProfileToJson(profile));
}

namespace {

void RegisterIngestValues(py::module_& m) {
  py::class_<FieldError> field_error(m, "FieldError", "One bad field of a rejected record.");
  DefineValues(field_error, Field{"line", &FieldError::line}, Field{"field", &FieldError::field},
               Field{"reason", &FieldError::reason});

  py::class_<IngestReject> reject(m, "IngestReject", "A rejected record and every bad field.");
  DefineValues(reject, Field{"line", &IngestReject::line},
               Field{"execution_id", &IngestReject::execution_id},
               Field{"field", &IngestReject::field}, Field{"reason", &IngestReject::reason},
               Field{"errors", &IngestReject::errors});

  py::class_<IngestWarning> warning(m, "IngestWarning", "A record kept with a remark.");
  DefineValues(warning, Field{"line", &IngestWarning::line},
               Field{"execution_id", &IngestWarning::execution_id},
               Field{"field", &IngestWarning::field}, Field{"message", &IngestWarning::message});

  py::class_<IngestSummary> summary(m, "IngestSummary", "What one ingest call stored.");
  DefineValues(
      summary, Field{"accepted", &IngestSummary::accepted},
      Field{"duplicates", &IngestSummary::duplicates},
      Field{"conflicts", &IngestSummary::conflicts}, Field{"rejected", &IngestSummary::rejected},
      Field{"profile_id_mismatches", &IngestSummary::profile_id_mismatches},
      Field{"unresolved_hardware", &IngestSummary::unresolved_hardware},
      Field{"retried_batches", &IngestSummary::retried_batches},
      Field{"rejects", &IngestSummary::rejects}, Field{"warnings", &IngestSummary::warnings},
      Field{"conflict_execution_ids", &IngestSummary::conflict_execution_ids});
}

void RegisterPoolValues(py::module_& m) {
  py::class_<NodePool> pool(m, "NodePool", "A registered node pool and its hardware.");
  DefineValues(pool, Field{"node_pool_id", &NodePool::node_pool_id},
               Field{"site_id", &NodePool::site_id}, Field{"name", &NodePool::name},
               Field{"hardware", [](const NodePool& p) { return ProfileDict(p.hardware); }},
               Field{"gpu_model_known", &NodePool::gpu_model_known});

  py::class_<PoolImportError> reject(m, "PoolReject", "A pool record that was not registered.");
  DefineValues(reject, Field{"line", &PoolImportError::line},
               Field{"node_pool_id", &PoolImportError::node_pool_id},
               Field{"field", &PoolImportError::field}, Field{"reason", &PoolImportError::reason});

  py::class_<PoolImportSummary> summary(m, "PoolImportSummary", "What register_pools did.");
  DefineValues(summary, Field{"registered", &PoolImportSummary::registered},
               Field{"updated", &PoolImportSummary::updated},
               Field{"unchanged", &PoolImportSummary::unchanged},
               Field{"rejected", [](const PoolImportSummary& s) { return s.errors.size(); }},
               Field{"rejects", &PoolImportSummary::errors},
               Field{"warnings", &PoolImportSummary::warnings});
}

}  // namespace

void RegisterStoreValues(py::module_& m) {
  py::class_<StoreStatus> status(m, "StoreStatus", "What `hwrec status` shows.");
  DefineValues(status, Field{"path", [](const StoreStatus& s) { return PathText(s.path); }},
               Field{"engine", &StoreStatus::engine},
               Field{"schema_version", &StoreStatus::schema_version},
               Field{"latest_schema_version", &StoreStatus::latest_schema_version},
               Field{"hp_version", &StoreStatus::hp_version},
               Field{"journal_mode", &StoreStatus::journal_mode},
               Field{"file_size_bytes", &StoreStatus::file_size_bytes},
               Field{"wal_size_bytes", &StoreStatus::wal_size_bytes},
               Field{"tables", [](const StoreStatus& s) { return TableCountsDict(s.tables); }},
               Field{"opened", &StoreStatus::opened}, Field{"immutable", &StoreStatus::immutable});

  py::class_<ConfigEntry> config(
      m, "ConfigEntry", "One setting of the store, as `hwrec config list` shows it (text).");
  DefineValues(config, Field{"key", &ConfigEntry::key}, Field{"value", &ConfigEntry::value},
               Field{"default_value", &ConfigEntry::default_value},
               Field{"description", &ConfigEntry::description});

  RegisterPoolValues(m);
  RegisterIngestValues(m);

  py::class_<GpuPartition> partition(
      m, "GpuPartition", "One way to use a card of the catalog: memory_gb in GiB (2^30 bytes).");
  DefineValues(partition, Field{"gpu_config_id", &GpuPartition::gpu_config_id},
               Field{"brand", &GpuPartition::brand}, Field{"model", &GpuPartition::model},
               Field{"mode", &GpuPartition::mode}, Field{"memory_gb", &GpuPartition::memory_gb},
               Field{"compute_slices", &GpuPartition::compute_slices},
               Field{"compute_fraction", &GpuPartition::compute_fraction});
}

}  // namespace hwrec::python
