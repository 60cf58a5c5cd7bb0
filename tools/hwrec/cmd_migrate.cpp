// hwrec migrate: applies pending schema migrations, including the consented
// hp:v1 -> hp:v2 move of legacy history (with --dry-run, its plan).
#include <fmt/format.h>
#include <unistd.h>
#include <boost/program_options.hpp>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hwrec/store_location.h"
#include "hwrec/time_text.h"

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"

namespace hwrec::cli {

namespace {

struct MigrateArgs : StoreAndFormat {
  bool dry_run = false;
  bool accept_hp_v2 = false;
  bool no_backup = false;
  std::string pools_file;
};

const char* const kMigrateUsage =
    "hwrec migrate STORE [--dry-run] [--accept-hp-v2] [--no-backup] [--pools FILE]\n"
    "                     [--format table|json]\n\n"
    "Applies pending schema migrations. A store with legacy site-keyed history (hp:v1)\n"
    "is re-keyed by hardware (hp:v2) only with --accept-hp-v2: every row moves into\n"
    "observations with its hp:v1 id kept, or into quarantine with a reason, all in one\n"
    "transaction, after a backup (STORE.hp-v1-backup-<time>). Rows resolve through their\n"
    "node pool (the legacy site_node_pools table, registered pools, or --pools FILE:\n"
    "JSON lines as for `hwrec pools import`) or their own GPU name via the catalog.\n"
    "--dry-run prints the plan per site and node pool and changes nothing.";

std::optional<MigrateArgs> ParseMigrateArgs(const std::vector<std::string>& args) {
  std::string format_text;
  MigrateArgs parsed;
  CommandLine line(kMigrateUsage);
  line.Store(nullptr, kStorePathHelp)
      .Format(&format_text)
      .Add()("dry-run", po::bool_switch(&parsed.dry_run), "print the plan, change nothing")(
          "accept-hp-v2", po::bool_switch(&parsed.accept_hp_v2),
          "consent to re-key legacy history by hardware (hp:v2)")(
          "no-backup", po::bool_switch(&parsed.no_backup), "do not write a backup first")(
          "pools", po::value<std::string>(&parsed.pools_file),
          "node pools (JSON lines) to register and resolve legacy rows with");
  po::variables_map vm;
  if (!line.Parse(args, &vm)) return std::nullopt;
  parsed.store = RequiredStore(vm);
  parsed.format = ParseFormat(format_text);
  return parsed;
}

// Reads `hwrec pools import` JSON lines; throws naming the file and line.
std::vector<NodePool> ReadPools(const std::string& path) {
  std::vector<NodePool> pools;
  if (path.empty()) return pools;
  std::istringstream in(ReadInput(path));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto pool = ParseNodePoolJson(line);
    if (!pool.ok()) {
      throw std::runtime_error(fmt::format("{}:{}: {}: fix the line and run again", path, number,
                                           pool.status().message()));
    }
    pools.push_back(std::move(pool).value());
  }
  return pools;
}

// A one-line bar redrawn in place on stderr.
void DrawProgress(std::int64_t done, std::int64_t total) {
  const double share = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  DrawProgressLine("migrating legacy rows", share, fmt::format("{}/{}", done, total),
                   done >= total);
}

std::string GroupCounts(const LegacyPlanGroup& g) {
  std::string quarantined;
  for (const auto& [code, rows] : g.quarantined) {
    quarantined += fmt::format("{}{}: {}", quarantined.empty() ? "" : ", ", code, rows);
  }
  return quarantined.empty() ? "-" : quarantined;
}

void PrintPlanTable(const LegacyPlan& plan) {
  std::cout << TerminalFormat("{}: schema {} -> {} (dry run: nothing changed)\n", plan.path,
                              plan.from_version, plan.to_version);
  for (int version : plan.pending_versions)
    std::cout << fmt::format("  would apply {:04d}\n", version);
  if (plan.legacy_rows == 0) {
    std::cout << "no legacy site-keyed rows: the migration needs no --accept-hp-v2\n";
    return;
  }
  std::cout << fmt::format(
      "legacy rows: {} -> {} migrated to hp:v2 observations, {} quarantined\n\n", plan.legacy_rows,
      plan.migrated, plan.quarantined);
  Table table({"site", "node_pool", "rows", "via_pool", "via_row_gpu", "cpu_only", "quarantined"});
  for (const LegacyPlanGroup& g : plan.groups) {
    table.AddRow({g.site_id, g.node_pool_id.empty() ? "(none)" : g.node_pool_id,
                  std::to_string(g.rows), std::to_string(g.via_node_pool),
                  std::to_string(g.via_row_gpu), std::to_string(g.cpu_only), GroupCounts(g)});
  }
  table.Print(std::cout);
  if (!plan.reason_text.empty()) std::cout << "\nquarantine reasons (one example each):\n";
  for (const auto& [code, text] : plan.reason_text) {
    std::cout << TerminalFormat("  {}: {}\n", code, text);
  }
  if (plan.unknown_model > 0) {
    std::cout << TerminalFormat(
        "\n{} row(s) of GPU pools with no recorded model are never guessed: once migrated, "
        "attach the model when it is known, or release them into the unknown-model "
        "population with\n  {}\n",
        plan.unknown_model, plan.release_unknown_model);
  }
  std::cout << TerminalFormat("\nto migrate: hwrec migrate {} --accept-hp-v2\n", plan.path);
}

nlohmann::ordered_json PlanJson(const LegacyPlan& plan) {
  nlohmann::ordered_json out = tools::JsonObject(
      "dry_run", true, "from_version", plan.from_version, "to_version", plan.to_version, "pending",
      plan.pending_versions, "legacy_rows", plan.legacy_rows, "migrated", plan.migrated,
      "quarantined", plan.quarantined, "groups", nlohmann::ordered_json::array());
  for (const LegacyPlanGroup& g : plan.groups) {
    out["groups"].push_back(tools::JsonObject("site_id", g.site_id, "node_pool_id", g.node_pool_id,
                                              "rows", g.rows, "via_node_pool", g.via_node_pool,
                                              "via_row_gpu", g.via_row_gpu, "cpu_only", g.cpu_only,
                                              "quarantined", g.quarantined));
  }
  out["reasons"] = plan.reason_text;
  out["unknown_model"] = tools::JsonObject(
      "rows", plan.unknown_model, "command",
      plan.release_unknown_model.empty() ? nlohmann::ordered_json()
                                         : nlohmann::ordered_json(plan.release_unknown_model));
  return out;
}

int PrintDryRun(const MigrateArgs& a, const std::vector<NodePool>& pools) {
  StoreOptions options;
  options.read_only = true;  // a preview never writes, not even the WAL switch
  options.no_repair = true;
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  auto plan = PlanLegacyMigration(*store, pools);
  if (!plan.ok()) return Fail(plan.status());
  if (a.format == Format::kJson) {
    std::cout << tools::DumpJson(PlanJson(*plan)) << "\n";
  } else if (plan->pending_versions.empty() && plan->legacy_rows == 0) {
    std::cout << TerminalFormat(
        "{}: already at schema {}, the latest this build knows; nothing to do\n", store->path(),
        plan->from_version);
  } else {
    PrintPlanTable(*plan);
  }
  return kExitOk;
}

void PrintReport(const std::string& path, const LegacyMigrationReport& r) {
  if (r.nothing_to_do) {
    std::cout << TerminalFormat(
        "{}: already at schema {}, the latest this build knows; nothing to do", path,
        r.from_version);
    if (!r.history.empty()) {
      const LegacyMigrationRecord& last = r.history.back();
      std::cout << fmt::format(
          " (legacy history was migrated to hp:v2 on {}: {} rows migrated, "
          "{} quarantined)",
          FormatTime(last.migrated_at), last.migrated, last.quarantined);
    }
    std::cout << "\n";
    return;
  }
  std::cout << TerminalFormat("{}: schema {} -> {}\n", path, r.from_version, r.to_version);
  for (int version : r.applied) std::cout << fmt::format("  applied {:04d}\n", version);
  if (r.legacy_rows == 0) return;
  if (!r.backup_path.empty()) std::cout << TerminalFormat("backup: {}\n", r.backup_path);
  std::cout << fmt::format(
      "legacy rows: {} -> {} migrated to hp:v2 observations (hp:v1 ids kept), {} quarantined\n"
      "node pools registered: {}; recommendations materialised: {}\n",
      r.legacy_rows, r.migrated, r.quarantined, r.pools_registered, r.recommendations);
  if (r.quarantined > 0) {
    std::cout << TerminalFormat("see the quarantined rows with `hwrec quarantine list {}`\n", path);
  }
}

nlohmann::ordered_json ReportJson(const LegacyMigrationReport& r) {
  return tools::JsonObject(
      "dry_run", false, "from_version", r.from_version, "to_version", r.to_version, "applied",
      r.applied, "nothing_to_do", r.nothing_to_do, "legacy_rows", r.legacy_rows, "migrated",
      r.migrated, "quarantined", r.quarantined, "pools_registered", r.pools_registered,
      "recommendations", r.recommendations, "backup_path",
      r.backup_path.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.backup_path),
      "migrations_of_legacy_history", r.history.size());
}

}  // namespace

int RunMigrate(const std::vector<std::string>& args) {
  const std::optional<MigrateArgs> a = ParseMigrateArgs(args);
  if (!a) return kExitOk;
  if (a->accept_hp_v2 && IsPostgresqlLocation(a->store)) {
    return Fail(Status::InvalidArgument(fmt::format(
        "{}: the hp:v1 -> hp:v2 move is for SQLite files (legacy stores are files): migrate the "
        "file with `hwrec migrate FILE --accept-hp-v2`, then `hwrec copy FILE {}`",
        PrintableLocation(a->store), PrintableLocation(a->store))));
  }
  const std::vector<NodePool> pools = ReadPools(a->pools_file);
  if (a->dry_run) return PrintDryRun(*a, pools);
  StoreOptions store_options;
  store_options.create_if_missing = false;
  auto store = OpenStore(a->store, store_options);
  if (!store) return kExitError;
  LegacyMigrationOptions options;
  options.accept_hp_v2 = a->accept_hp_v2;
  options.backup = !a->no_backup;
  options.pools = pools;
  if (isatty(STDERR_FILENO) != 0) options.progress = DrawProgress;
  auto report = MigrateStore(*store, options);
  if (!report.ok()) return Fail(report.status());
  if (a->format == Format::kJson) {
    std::cout << tools::DumpJson(ReportJson(*report)) << "\n";
  } else {
    PrintReport(store->path(), *report);
  }
  return kExitOk;
}

}  // namespace hwrec::cli
