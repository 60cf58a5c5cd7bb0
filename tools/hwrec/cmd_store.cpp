// hwrec init | status | migrate | schema: creating, inspecting and migrating
// stores, including the consented hp:v1 -> hp:v2 move of legacy history.
#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/time.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"

#include "cli.h"
#include "commands.h"
#include "terminal_text.h"

namespace hwrec::cli {

namespace {

std::string StorePositional(const po::variables_map& vm) {
  if (vm.count("store") == 0) throw UsageError("the STORE path is required");
  return vm["store"].as<std::string>();
}

struct StoreArgs {
  std::string store;
  Format format = Format::kTable;
  bool dry_run = false;
  bool strict_read_only = false;
  bool help = false;
};

// Parses `<command> STORE [--format] [--dry-run] [--read-only]`.
StoreArgs ParseStoreArgs(const std::vector<std::string>& args, const std::string& usage,
                         bool with_dry_run, bool with_format, bool with_read_only = false) {
  po::options_description options("Options");
  std::string format_text;
  options.add_options()("store", po::value<std::string>(), "path of the store");
  if (with_format) AddFormatOption(options, &format_text);
  if (with_dry_run) {
    options.add_options()("dry-run", po::bool_switch(), "print the plan, change nothing");
  }
  po::positional_options_description positional;
  positional.add("store", 1);
  StoreArgs parsed;
  if (with_read_only) AddReadOnlyOption(options, &parsed.strict_read_only);
  po::variables_map vm;
  if (!ParseArgs(args, usage, options, positional, &vm)) {
    parsed.help = true;
    return parsed;
  }
  parsed.store = StorePositional(vm);
  if (with_format) parsed.format = ParseFormat(format_text);
  if (with_dry_run) parsed.dry_run = vm["dry-run"].as<bool>();
  return parsed;
}

// WAL is what every hwrec open sets; anything else deserves a word.
std::string JournalNote(const std::string& mode, bool immutable) {
  if (mode == "wal" || mode == "memory" || immutable) return "";
  return " (not WAL: an interrupted migration leaves a rollback journal, and WAL could not be "
         "restored now because this user cannot write the store or another program holds it "
         "open; the next hwrec command that can write it restores WAL)";
}

void PrintStatusTable(const StoreStatus& s, const std::vector<MigrationInfo>& migrations) {
  std::cout << TerminalFormat("store:          {}\n", s.path)
            << fmt::format("schema version: {} (this build: {})\n", s.schema_version,
                           s.latest_schema_version)
            << fmt::format("hardware ids:   {}\n", s.hp_version)
            << fmt::format("journal mode:   {}{}\n", s.journal_mode,
                           JournalNote(s.journal_mode, s.immutable))
            << fmt::format("opened:         {}\n", s.opened)
            << fmt::format("file size:      {} ({} bytes; WAL {} bytes)\n",
                           HumanBytes(s.file_size_bytes), s.file_size_bytes, s.wal_size_bytes);
  if (!s.schema_problem.empty()) {
    std::cout << TerminalFormat("schema problem: {}\n", s.schema_problem);
  }
  int pending = 0;
  for (const MigrationInfo& m : migrations) pending += m.applied ? 0 : 1;
  if (pending > 0 && s.schema_problem.empty()) {
    std::cout << TerminalFormat("pending:        {} migration(s): run `hwrec migrate {}`\n",
                                pending, s.path);
  }
  std::cout << "\n";
  Table table({"table", "rows"});
  for (const TableCount& t : s.tables) table.AddRow({t.table, std::to_string(t.rows)});
  table.Print(std::cout);
}

nlohmann::ordered_json MigrationsJson(const std::vector<MigrationInfo>& migrations) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const MigrationInfo& m : migrations) {
    out.push_back({{"version", m.version},
                   {"name", m.name},
                   {"checksum", m.checksum},
                   {"applied", m.applied},
                   {"applied_at", m.applied ? nlohmann::ordered_json(m.applied_at) : nullptr}});
  }
  return out;
}

}  // namespace

int RunInit(const std::vector<std::string>& args) {
  const StoreArgs a = ParseStoreArgs(args, "hwrec init STORE", false, false);
  if (a.help) return kExitOk;
  std::error_code ec;
  const bool existed = std::filesystem::file_size(a.store, ec) > 0 && !ec;
  StoreOptions options;
  options.create_if_missing = true;  // init is the one command that makes a store
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  if (existed && store->schema_version() < Store::LatestSchemaVersion()) {
    std::cout << TerminalFormat(
        "{}: store already exists at schema {} (this build: {}): run `hwrec migrate {}`\n", a.store,
        store->schema_version(), Store::LatestSchemaVersion(), a.store);
    return kExitOk;
  }
  std::cout << TerminalFormat("{}: {} at schema {}\n", a.store,
                              existed ? "store already initialised" : "created store",
                              store->schema_version());
  return kExitOk;
}

int RunStatus(const std::vector<std::string>& args) {
  const StoreArgs a = ParseStoreArgs(args, "hwrec status STORE [--read-only] [--format table|json]",
                                     false, true, true);
  if (a.help) return kExitOk;
  StoreOptions options = ReadingStoreOptions(a.strict_read_only);
  options.inspect_schema = true;  // the operator must be able to look at a store hwrec refuses
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  auto status = store->GetStatus();
  if (!status.ok()) return Fail(status.status());
  auto migrations = store->Migrations();
  if (!migrations.ok()) return Fail(migrations.status());
  if (a.format == Format::kTable) {
    PrintStatusTable(*status, *migrations);
    return kExitOk;
  }
  nlohmann::ordered_json out;
  out["path"] = status->path;
  out["schema_version"] = status->schema_version;
  out["latest_schema_version"] = status->latest_schema_version;
  out["hp_version"] = status->hp_version;
  out["journal_mode"] = status->journal_mode;
  out["file_size_bytes"] = status->file_size_bytes;
  out["wal_size_bytes"] = status->wal_size_bytes;
  out["opened"] = status->opened;
  out["immutable"] = status->immutable;
  out["schema_problem"] = status->schema_problem.empty()
                              ? nlohmann::ordered_json()
                              : nlohmann::ordered_json(status->schema_problem);
  out["tables"] = nlohmann::ordered_json::object();
  for (const TableCount& t : status->tables) out["tables"][t.table] = t.rows;
  out["migrations"] = MigrationsJson(*migrations);
  std::cout << DumpJson(out) << "\n";
  return kExitOk;
}

namespace {

struct MigrateArgs {
  std::string store;
  Format format = Format::kTable;
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
  po::options_description options("Options");
  std::string format_text;
  MigrateArgs parsed;
  options.add_options()("store", po::value<std::string>(), "path of the store");
  AddFormatOption(options, &format_text);
  options.add_options()("dry-run", po::bool_switch(&parsed.dry_run),
                        "print the plan, change nothing")(
      "accept-hp-v2", po::bool_switch(&parsed.accept_hp_v2),
      "consent to re-key legacy history by hardware (hp:v2)")(
      "no-backup", po::bool_switch(&parsed.no_backup), "do not write a backup first")(
      "pools", po::value<std::string>(&parsed.pools_file),
      "node pools (JSON lines) to register and resolve legacy rows with");
  po::positional_options_description positional;
  positional.add("store", 1);
  po::variables_map vm;
  if (!ParseArgs(args, kMigrateUsage, options, positional, &vm)) return std::nullopt;
  parsed.store = StorePositional(vm);
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
  std::cout << TerminalFormat("\nto migrate: hwrec migrate {} --accept-hp-v2\n", plan.path);
}

nlohmann::ordered_json PlanJson(const LegacyPlan& plan) {
  nlohmann::ordered_json out;
  out["dry_run"] = true;
  out["from_version"] = plan.from_version;
  out["to_version"] = plan.to_version;
  out["pending"] = plan.pending_versions;
  out["legacy_rows"] = plan.legacy_rows;
  out["migrated"] = plan.migrated;
  out["quarantined"] = plan.quarantined;
  out["groups"] = nlohmann::ordered_json::array();
  for (const LegacyPlanGroup& g : plan.groups) {
    out["groups"].push_back({{"site_id", g.site_id},
                             {"node_pool_id", g.node_pool_id},
                             {"rows", g.rows},
                             {"via_node_pool", g.via_node_pool},
                             {"via_row_gpu", g.via_row_gpu},
                             {"cpu_only", g.cpu_only},
                             {"quarantined", g.quarantined}});
  }
  out["reasons"] = plan.reason_text;
  return out;
}

int PrintDryRun(const MigrateArgs& a, const std::vector<NodePool>& pools) {
  StoreOptions options;
  options.read_only = true;  // a preview never writes, not even the WAL switch
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  auto plan = PlanLegacyMigration(*store, pools);
  if (!plan.ok()) return Fail(plan.status());
  if (a.format == Format::kJson) {
    std::cout << DumpJson(PlanJson(*plan)) << "\n";
  } else if (plan->pending_versions.empty() && plan->legacy_rows == 0) {
    std::cout << TerminalFormat(
        "{}: already at schema {}, the latest this build knows; nothing to do\n", a.store,
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
          internal::FormatRfc3339(last.migrated_at), last.migrated, last.quarantined);
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
  nlohmann::ordered_json out;
  out["dry_run"] = false;
  out["from_version"] = r.from_version;
  out["to_version"] = r.to_version;
  out["applied"] = r.applied;
  out["nothing_to_do"] = r.nothing_to_do;
  out["legacy_rows"] = r.legacy_rows;
  out["migrated"] = r.migrated;
  out["quarantined"] = r.quarantined;
  out["pools_registered"] = r.pools_registered;
  out["recommendations"] = r.recommendations;
  out["backup_path"] =
      r.backup_path.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.backup_path);
  out["migrations_of_legacy_history"] = r.history.size();
  return out;
}

}  // namespace

int RunMigrate(const std::vector<std::string>& args) {
  const std::optional<MigrateArgs> a = ParseMigrateArgs(args);
  if (!a) return kExitOk;
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
    std::cout << DumpJson(ReportJson(*report)) << "\n";
  } else {
    PrintReport(a->store, *report);
  }
  return kExitOk;
}

int RunSchema(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("output,o", po::value<std::string>(),
                        "write to this file instead of stdout");
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec schema [--output FILE]", options, {}, &vm)) return kExitOk;
  auto store = OpenScratchStore();
  if (!store) return kExitError;
  auto schema = store->DumpSchema();
  if (!schema.ok()) return Fail(schema.status());
  if (vm.count("output") == 0) {
    std::cout << *schema;
    return kExitOk;
  }
  const std::string path = vm["output"].as<std::string>();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *schema;
  if (!out) return Fail(Status::IoError(fmt::format("{}: cannot write the schema", path)));
  std::cout << TerminalFormat("wrote {}\n", path);
  return kExitOk;
}

}  // namespace hwrec::cli
