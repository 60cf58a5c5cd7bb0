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

py::dict ProfileDict(const HardwareProfile& p) {
  py::dict d;
  d["instance_type"] = Opt(p.instance_type);
  d["architecture"] = Opt(p.architecture);
  d["cpu_millicores"] = Opt(p.cpu_millicores);
  d["memory_bytes"] = Opt(p.memory_bytes);
  d["gpu_count"] = Opt(p.gpu_count);
  d["gpu_mode"] = Opt(p.gpu_mode);
  d["gpu_total"] = Opt(p.gpu_total);
  d["gpu_brand"] = Opt(p.gpu_brand);
  d["gpu_model"] = Opt(p.gpu_model);
  return d;
}

namespace {

// A file path as Python names it: bytes that are not UTF-8 through surrogate
// escapes (os.fsdecode), so that a store at such a path reports its status.
py::str PathText(const std::string& path) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size())));
}

void RegisterIngestValues(py::module_& m) {
  py::class_<FieldError> field_error(m, "FieldError", "One bad field of a rejected record.");
  field_error.def_readonly("line", &FieldError::line)
      .def_readonly("field", &FieldError::field)
      .def_readonly("reason", &FieldError::reason);
  AddDictAndRepr(field_error);

  py::class_<IngestReject> reject(m, "IngestReject", "A rejected record and every bad field.");
  reject.def_readonly("line", &IngestReject::line)
      .def_readonly("execution_id", &IngestReject::execution_id)
      .def_readonly("field", &IngestReject::field)
      .def_readonly("reason", &IngestReject::reason)
      .def_readonly("errors", &IngestReject::errors);
  AddDictAndRepr(reject);

  py::class_<IngestWarning> warning(m, "IngestWarning", "A record kept with a remark.");
  warning.def_readonly("line", &IngestWarning::line)
      .def_readonly("execution_id", &IngestWarning::execution_id)
      .def_readonly("field", &IngestWarning::field)
      .def_readonly("message", &IngestWarning::message);
  AddDictAndRepr(warning);

  py::class_<IngestSummary> summary(m, "IngestSummary", "What one ingest call stored.");
  summary.def_readonly("accepted", &IngestSummary::accepted)
      .def_readonly("duplicates", &IngestSummary::duplicates)
      .def_readonly("conflicts", &IngestSummary::conflicts)
      .def_readonly("rejected", &IngestSummary::rejected)
      .def_readonly("profile_id_mismatches", &IngestSummary::profile_id_mismatches)
      .def_readonly("unresolved_hardware", &IngestSummary::unresolved_hardware)
      .def_readonly("retried_batches", &IngestSummary::retried_batches)
      .def_readonly("rejects", &IngestSummary::rejects)
      .def_readonly("warnings", &IngestSummary::warnings)
      .def_readonly("conflict_execution_ids", &IngestSummary::conflict_execution_ids);
  AddDictAndRepr(summary);
}

void RegisterPoolValues(py::module_& m) {
  py::class_<NodePool> pool(m, "NodePool", "A registered node pool and its hardware.");
  pool.def_readonly("node_pool_id", &NodePool::node_pool_id)
      .def_readonly("site_id", &NodePool::site_id)
      .def_readonly("name", &NodePool::name)
      .def_property_readonly("hardware", [](const NodePool& p) { return ProfileDict(p.hardware); })
      .def_property_readonly("gpu_model_known", &NodePool::gpu_model_known);
  AddDictAndRepr(pool);

  py::class_<PoolImportError> reject(m, "PoolReject", "A pool record that was not registered.");
  reject.def_readonly("line", &PoolImportError::line)
      .def_readonly("node_pool_id", &PoolImportError::node_pool_id)
      .def_readonly("field", &PoolImportError::field)
      .def_readonly("reason", &PoolImportError::reason);
  AddDictAndRepr(reject);

  py::class_<PoolImportSummary> summary(m, "PoolImportSummary", "What register_pools did.");
  summary.def_readonly("registered", &PoolImportSummary::registered)
      .def_readonly("updated", &PoolImportSummary::updated)
      .def_readonly("unchanged", &PoolImportSummary::unchanged)
      .def_property_readonly("rejected", [](const PoolImportSummary& s) { return s.errors.size(); })
      .def_readonly("rejects", &PoolImportSummary::errors)
      .def_readonly("warnings", &PoolImportSummary::warnings);
  AddDictAndRepr(summary);
}

}  // namespace

void RegisterStoreValues(py::module_& m) {
  py::class_<StoreStatus> status(m, "StoreStatus", "What `hwrec status` shows.");
  status.def_property_readonly("path", [](const StoreStatus& s) { return PathText(s.path); })
      .def_readonly("engine", &StoreStatus::engine)
      .def_readonly("schema_version", &StoreStatus::schema_version)
      .def_readonly("latest_schema_version", &StoreStatus::latest_schema_version)
      .def_readonly("hp_version", &StoreStatus::hp_version)
      .def_readonly("journal_mode", &StoreStatus::journal_mode)
      .def_readonly("file_size_bytes", &StoreStatus::file_size_bytes)
      .def_readonly("wal_size_bytes", &StoreStatus::wal_size_bytes)
      .def_property_readonly("tables",
                             [](const StoreStatus& s) { return TableCountsDict(s.tables); })
      .def_readonly("opened", &StoreStatus::opened)
      .def_readonly("immutable", &StoreStatus::immutable);
  AddDictAndRepr(status);

  py::class_<ConfigEntry> config(
      m, "ConfigEntry", "One setting of the store, as `hwrec config list` shows it (text).");
  config.def_readonly("key", &ConfigEntry::key)
      .def_readonly("value", &ConfigEntry::value)
      .def_readonly("default_value", &ConfigEntry::default_value)
      .def_readonly("description", &ConfigEntry::description);
  AddDictAndRepr(config);

  RegisterPoolValues(m);
  RegisterIngestValues(m);

  py::class_<GpuPartition> partition(
      m, "GpuPartition", "One way to use a card of the catalog: memory_gb in GiB (2^30 bytes).");
  partition.def_readonly("gpu_config_id", &GpuPartition::gpu_config_id)
      .def_readonly("brand", &GpuPartition::brand)
      .def_readonly("model", &GpuPartition::model)
      .def_readonly("mode", &GpuPartition::mode)
      .def_readonly("memory_gb", &GpuPartition::memory_gb)
      .def_readonly("compute_slices", &GpuPartition::compute_slices)
      .def_readonly("compute_fraction", &GpuPartition::compute_fraction);
  AddDictAndRepr(partition);
}

}  // namespace hwrec::python
