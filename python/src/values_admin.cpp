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
  DefineValues(
      row, Field{"id", &QuarantinedRow::id}, Field{"execution_id", &QuarantinedRow::execution_id},
      Field{"site_id", &QuarantinedRow::site_id},
      Field{"action_image", &QuarantinedRow::action_image},
      Field{"node_pool_id", &QuarantinedRow::node_pool_id},
      Field{"finished_at", &QuarantinedRow::finished_at},
      Field{"instance_type", &QuarantinedRow::instance_type},
      Field{"gpu_mode", &QuarantinedRow::gpu_mode},
      Field{"gpu_name", &QuarantinedRow::node_pool_gpu},
      Field{"hardware_profile_id", &QuarantinedRow::hardware_profile_id},
      Field{"reason_code", &QuarantinedRow::reason_code}, Field{"reason", &QuarantinedRow::reason});

  py::class_<QuarantineResolveSummary> summary(m, "QuarantineResolveSummary",
                                               "What resolve_quarantine moved and kept.");
  DefineValues(summary, Field{"matched", &QuarantineResolveSummary::matched},
               Field{"moved", &QuarantineResolveSummary::moved},
               Field{"moved_by_own_hardware", &QuarantineResolveSummary::moved_by_own_hardware},
               Field{"kept", &QuarantineResolveSummary::kept},
               Field{"recommendations", &QuarantineResolveSummary::recommendations});
}

void RegisterLegacy(py::module_& m) {
  py::class_<LegacyPlanGroup> group(
      m, "LegacyPlanGroup", "One site and node pool of legacy history, and where its rows go.");
  DefineValues(group, Field{"site_id", &LegacyPlanGroup::site_id},
               Field{"node_pool_id", &LegacyPlanGroup::node_pool_id},
               Field{"rows", &LegacyPlanGroup::rows},
               Field{"via_node_pool", &LegacyPlanGroup::via_node_pool},
               Field{"via_row_gpu", &LegacyPlanGroup::via_row_gpu},
               Field{"cpu_only", &LegacyPlanGroup::cpu_only},
               Field{"quarantined", &LegacyPlanGroup::quarantined});

  py::class_<LegacyPlan> plan(m, "LegacyPlan", "What migrate_legacy would do; nothing changed.");
  DefineValues(plan, Field{"path", [](const LegacyPlan& p) { return PathText(p.path); }},
               Field{"from_version", &LegacyPlan::from_version},
               Field{"to_version", &LegacyPlan::to_version},
               Field{"pending_versions", &LegacyPlan::pending_versions},
               Field{"legacy_rows", &LegacyPlan::legacy_rows},
               Field{"migrated", &LegacyPlan::migrated},
               Field{"quarantined", &LegacyPlan::quarantined}, Field{"groups", &LegacyPlan::groups},
               Field{"reason_text", &LegacyPlan::reason_text},
               Field{"unknown_model", &LegacyPlan::unknown_model});

  py::class_<LegacyMigrationRecord> record(m, "LegacyMigrationRecord",
                                           "A finished legacy migration, as the store records it.");
  DefineValues(
      record, Field{"migrated_at", &LegacyMigrationRecord::migrated_at},
      Field{"from_version", &LegacyMigrationRecord::from_version},
      Field{"legacy_rows", &LegacyMigrationRecord::legacy_rows},
      Field{"migrated", &LegacyMigrationRecord::migrated},
      Field{"quarantined", &LegacyMigrationRecord::quarantined},
      Field{"backup_path", [](const LegacyMigrationRecord& r) { return PathText(r.backup_path); }});

  py::class_<LegacyMigrationReport> report(m, "LegacyMigrationReport", "What migrate_legacy did.");
  DefineValues(
      report, Field{"from_version", &LegacyMigrationReport::from_version},
      Field{"to_version", &LegacyMigrationReport::to_version},
      Field{"applied", &LegacyMigrationReport::applied},
      Field{"nothing_to_do", &LegacyMigrationReport::nothing_to_do},
      Field{"legacy_rows", &LegacyMigrationReport::legacy_rows},
      Field{"migrated", &LegacyMigrationReport::migrated},
      Field{"quarantined", &LegacyMigrationReport::quarantined},
      Field{"recommendations", &LegacyMigrationReport::recommendations},
      Field{"pools_registered", &LegacyMigrationReport::pools_registered},
      Field{"backup_path", [](const LegacyMigrationReport& r) { return PathText(r.backup_path); }},
      Field{"history", &LegacyMigrationReport::history});
}

void RegisterCheckAndCopy(py::module_& m) {
  py::class_<CheckResult> check(m, "CheckResult", "One check of a store and what it found.");
  // Messages, which may quote the store's path: bytes that are not UTF-8 as \xNN.
  DefineValues(check, Field{"name", &CheckResult::name},
               Field{"summary", [](const CheckResult& c) { return MessageText(c.summary); }},
               Field{"state", [](const CheckResult& c) { return Name(ToString(c.state)); }},
               Field{"problems",
                     [](const CheckResult& c) {
                       py::list problems;
                       for (const std::string& p : c.problems) problems.append(MessageText(p));
                       return problems;
                     }},
               Field{"problem_count", &CheckResult::problem_count},
               Field{"fix", [](const CheckResult& c) { return MessageText(c.fix); }});

  py::class_<StoreCheckReport> report(m, "StoreCheckReport", "What `hwrec check` found.");
  DefineValues(
      report, Field{"path", [](const StoreCheckReport& r) { return PathText(r.path); }},
      Field{"newest_backup", [](const StoreCheckReport& r) { return PathText(r.newest_backup); }},
      Field{"checks", &StoreCheckReport::checks}, Field{"sound", &StoreCheckReport::sound});

  py::class_<CopySummary> copy(m, "CopySummary", "What copy_to wrote, checked.");
  DefineValues(copy, Field{"source", [](const CopySummary& c) { return PathText(c.source); }},
               Field{"destination", [](const CopySummary& c) { return PathText(c.destination); }},
               Field{"tables", [](const CopySummary& c) { return TableCountsDict(c.tables); }},
               Field{"rows", &CopySummary::rows},
               Field{"aggregates_checked", &CopySummary::aggregates_checked});

  py::class_<CatalogImportSummary> catalog(m, "CatalogImportSummary", "What import_catalog did.");
  DefineValues(catalog, Field{"added", &CatalogImportSummary::added},
               Field{"unchanged", &CatalogImportSummary::unchanged},
               Field{"rejected", [](const CatalogImportSummary& s) { return s.errors.size(); }},
               Field{"rejects", &CatalogImportSummary::errors});
}

}  // namespace

void RegisterAdminValues(py::module_& m) {
  RegisterQuarantine(m);
  RegisterLegacy(m);
  RegisterCheckAndCopy(m);
}

}  // namespace hwrec::python
