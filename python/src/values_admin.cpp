// Result values of the store's upkeep: catalog imports, the quarantine, the
// legacy migration, checks and copies.
#include <pybind11/stl.h>

#include "binding.h"
#include "hwrec/catalog.h"
#include "hwrec/check.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/store_copy.h"
#include "values.h"

namespace hwrec::python {

namespace {

void RegisterQuarantine(py::module_& m) {
  py::class_<QuarantinedRow> row(m, "QuarantinedRow",
                                 "A legacy row the hp:v2 migration held back, and why.");
  row.def_readonly("id", &QuarantinedRow::id)
      .def_readonly("execution_id", &QuarantinedRow::execution_id)
      .def_readonly("site_id", &QuarantinedRow::site_id)
      .def_readonly("action_image", &QuarantinedRow::action_image)
      .def_readonly("node_pool_id", &QuarantinedRow::node_pool_id)
      .def_readonly("finished_at", &QuarantinedRow::finished_at)
      .def_readonly("instance_type", &QuarantinedRow::instance_type)
      .def_readonly("gpu_mode", &QuarantinedRow::gpu_mode)
      .def_readonly("gpu_name", &QuarantinedRow::node_pool_gpu)
      .def_readonly("hardware_profile_id", &QuarantinedRow::hardware_profile_id)
      .def_readonly("reason_code", &QuarantinedRow::reason_code)
      .def_readonly("reason", &QuarantinedRow::reason);
  AddDictAndRepr(row);

  py::class_<QuarantineResolveSummary> summary(m, "QuarantineResolveSummary",
                                               "What resolve_quarantine moved and kept.");
  summary.def_readonly("matched", &QuarantineResolveSummary::matched)
      .def_readonly("moved", &QuarantineResolveSummary::moved)
      .def_readonly("moved_by_own_hardware", &QuarantineResolveSummary::moved_by_own_hardware)
      .def_readonly("kept", &QuarantineResolveSummary::kept)
      .def_readonly("recommendations", &QuarantineResolveSummary::recommendations);
  AddDictAndRepr(summary);
}

void RegisterLegacy(py::module_& m) {
  py::class_<LegacyPlanGroup> group(
      m, "LegacyPlanGroup", "One site and node pool of legacy history, and where its rows go.");
  group.def_readonly("site_id", &LegacyPlanGroup::site_id)
      .def_readonly("node_pool_id", &LegacyPlanGroup::node_pool_id)
      .def_readonly("rows", &LegacyPlanGroup::rows)
      .def_readonly("via_node_pool", &LegacyPlanGroup::via_node_pool)
      .def_readonly("via_row_gpu", &LegacyPlanGroup::via_row_gpu)
      .def_readonly("cpu_only", &LegacyPlanGroup::cpu_only)
      .def_readonly("quarantined", &LegacyPlanGroup::quarantined);
  AddDictAndRepr(group);

  py::class_<LegacyPlan> plan(m, "LegacyPlan", "What migrate_legacy would do; nothing changed.");
  plan.def_readonly("path", &LegacyPlan::path)
      .def_readonly("from_version", &LegacyPlan::from_version)
      .def_readonly("to_version", &LegacyPlan::to_version)
      .def_readonly("pending_versions", &LegacyPlan::pending_versions)
      .def_readonly("legacy_rows", &LegacyPlan::legacy_rows)
      .def_readonly("migrated", &LegacyPlan::migrated)
      .def_readonly("quarantined", &LegacyPlan::quarantined)
      .def_readonly("groups", &LegacyPlan::groups)
      .def_readonly("reason_text", &LegacyPlan::reason_text)
      .def_readonly("unknown_model", &LegacyPlan::unknown_model);
  AddDictAndRepr(plan);

  py::class_<LegacyMigrationRecord> record(m, "LegacyMigrationRecord",
                                           "A finished legacy migration, as the store records it.");
  record.def_readonly("migrated_at", &LegacyMigrationRecord::migrated_at)
      .def_readonly("from_version", &LegacyMigrationRecord::from_version)
      .def_readonly("legacy_rows", &LegacyMigrationRecord::legacy_rows)
      .def_readonly("migrated", &LegacyMigrationRecord::migrated)
      .def_readonly("quarantined", &LegacyMigrationRecord::quarantined)
      .def_readonly("backup_path", &LegacyMigrationRecord::backup_path);
  AddDictAndRepr(record);

  py::class_<LegacyMigrationReport> report(m, "LegacyMigrationReport", "What migrate_legacy did.");
  report.def_readonly("from_version", &LegacyMigrationReport::from_version)
      .def_readonly("to_version", &LegacyMigrationReport::to_version)
      .def_readonly("applied", &LegacyMigrationReport::applied)
      .def_readonly("nothing_to_do", &LegacyMigrationReport::nothing_to_do)
      .def_readonly("legacy_rows", &LegacyMigrationReport::legacy_rows)
      .def_readonly("migrated", &LegacyMigrationReport::migrated)
      .def_readonly("quarantined", &LegacyMigrationReport::quarantined)
      .def_readonly("recommendations", &LegacyMigrationReport::recommendations)
      .def_readonly("pools_registered", &LegacyMigrationReport::pools_registered)
      .def_readonly("backup_path", &LegacyMigrationReport::backup_path)
      .def_readonly("history", &LegacyMigrationReport::history);
  AddDictAndRepr(report);
}

void RegisterCheckAndCopy(py::module_& m) {
  py::class_<CheckResult> check(m, "CheckResult", "One check of a store and what it found.");
  check.def_readonly("name", &CheckResult::name)
      .def_readonly("summary", &CheckResult::summary)
      .def_property_readonly("state", [](const CheckResult& c) { return Name(ToString(c.state)); })
      .def_readonly("problems", &CheckResult::problems)
      .def_readonly("problem_count", &CheckResult::problem_count)
      .def_readonly("fix", &CheckResult::fix);
  AddDictAndRepr(check);

  py::class_<StoreCheckReport> report(m, "StoreCheckReport", "What `hwrec check` found.");
  report.def_readonly("path", &StoreCheckReport::path)
      .def_readonly("newest_backup", &StoreCheckReport::newest_backup)
      .def_readonly("checks", &StoreCheckReport::checks)
      .def_property_readonly("sound", &StoreCheckReport::sound);
  AddDictAndRepr(report);

  py::class_<CopySummary> copy(m, "CopySummary", "What copy_to wrote, checked.");
  copy.def_readonly("source", &CopySummary::source)
      .def_readonly("destination", &CopySummary::destination)
      .def_property_readonly("tables",
                             [](const CopySummary& c) { return TableCountsDict(c.tables); })
      .def_readonly("rows", &CopySummary::rows)
      .def_readonly("aggregates_checked", &CopySummary::aggregates_checked);
  AddDictAndRepr(copy);

  py::class_<CatalogImportSummary> catalog(m, "CatalogImportSummary", "What import_catalog did.");
  catalog.def_readonly("added", &CatalogImportSummary::added)
      .def_readonly("unchanged", &CatalogImportSummary::unchanged)
      .def_property_readonly("rejected",
                             [](const CatalogImportSummary& s) { return s.errors.size(); })
      .def_readonly("rejects", &CatalogImportSummary::errors);
  AddDictAndRepr(catalog);
}

}  // namespace

void RegisterAdminValues(py::module_& m) {
  RegisterQuarantine(m);
  RegisterLegacy(m);
  RegisterCheckAndCopy(m);
}

}  // namespace hwrec::python
