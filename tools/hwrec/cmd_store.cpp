// hwrec init | status | migrate | schema: creating, inspecting and migrating stores.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"

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
  bool help = false;
};

// Parses `<command> STORE [--format] [--dry-run]`.
StoreArgs ParseStoreArgs(const std::vector<std::string>& args, const std::string& usage,
                         bool with_dry_run, bool with_format) {
  po::options_description options("Options");
  std::string format_text;
  options.add_options()("store", po::value<std::string>(), "path of the store");
  if (with_format) AddFormatOption(options, &format_text);
  if (with_dry_run) {
    options.add_options()("dry-run", po::bool_switch(), "print the plan, change nothing");
  }
  po::positional_options_description positional;
  positional.add("store", 1);
  po::variables_map vm;
  StoreArgs parsed;
  if (!ParseArgs(args, usage, options, positional, &vm)) {
    parsed.help = true;
    return parsed;
  }
  parsed.store = StorePositional(vm);
  if (with_format) parsed.format = ParseFormat(format_text);
  if (with_dry_run) parsed.dry_run = vm["dry-run"].as<bool>();
  return parsed;
}

void PrintStatusTable(const StoreStatus& s, const std::vector<MigrationInfo>& migrations) {
  std::cout << fmt::format("store:          {}\n", s.path)
            << fmt::format("schema version: {} (this build: {})\n", s.schema_version,
                           s.latest_schema_version)
            << fmt::format("hardware ids:   {}\n", s.hp_version)
            << fmt::format("journal mode:   {}\n", s.journal_mode)
            << fmt::format("file size:      {} ({} bytes; WAL {} bytes)\n",
                           HumanBytes(s.file_size_bytes), s.file_size_bytes, s.wal_size_bytes);
  int pending = 0;
  for (const MigrationInfo& m : migrations) pending += m.applied ? 0 : 1;
  if (pending > 0) {
    std::cout << fmt::format("pending:        {} migration(s): run `hwrec migrate {}`\n", pending,
                             s.path);
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
  const bool existed = std::filesystem::exists(a.store);
  auto store = OpenStore(a.store);
  if (!store) return kExitError;
  if (existed && store->schema_version() < Store::LatestSchemaVersion()) {
    std::cout << fmt::format(
        "{}: store already exists at schema {} (this build: {}): run `hwrec migrate {}`\n",
        a.store, store->schema_version(), Store::LatestSchemaVersion(), a.store);
    return kExitOk;
  }
  std::cout << fmt::format("{}: {} at schema {}\n", a.store,
                           existed ? "store already initialised" : "created store",
                           store->schema_version());
  return kExitOk;
}

int RunStatus(const std::vector<std::string>& args) {
  const StoreArgs a = ParseStoreArgs(args, "hwrec status STORE [--format table|json]", false, true);
  if (a.help) return kExitOk;
  StoreOptions options;
  options.read_only = true;
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
  out["tables"] = nlohmann::ordered_json::object();
  for (const TableCount& t : status->tables) out["tables"][t.table] = t.rows;
  out["migrations"] = MigrationsJson(*migrations);
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

int RunMigrate(const std::vector<std::string>& args) {
  const StoreArgs a = ParseStoreArgs(
      args, "hwrec migrate STORE [--dry-run] [--format table|json]", true, true);
  if (a.help) return kExitOk;
  StoreOptions options;
  options.read_only = a.dry_run;  // a preview never writes, not even the WAL switch
  options.create_if_missing = false;
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  auto migrations = store->Migrations();
  if (!migrations.ok()) return Fail(migrations.status());
  std::vector<MigrationInfo> pending;
  for (const MigrationInfo& m : *migrations) {
    if (!m.applied) pending.push_back(m);
  }
  const int from = store->schema_version();
  std::vector<int> applied;
  if (!a.dry_run && !pending.empty()) {
    auto result = store->Migrate();
    if (!result.ok()) return Fail(result.status());
    applied = *result;
  }
  if (a.format == Format::kJson) {
    nlohmann::ordered_json out;
    out["from_version"] = from;
    out["to_version"] = a.dry_run ? (pending.empty() ? from : pending.back().version)
                                  : store->schema_version();
    out["dry_run"] = a.dry_run;
    out["pending"] = MigrationsJson(pending);
    out["applied"] = applied;
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (pending.empty()) {
    std::cout << fmt::format("{}: already at schema {}, the latest this build knows; nothing to do\n",
                             a.store, from);
    return kExitOk;
  }
  std::cout << fmt::format("{}: schema {} -> {}{}\n", a.store, from, pending.back().version,
                           a.dry_run ? " (dry run: nothing changed)" : "");
  for (const MigrationInfo& m : pending) {
    std::cout << fmt::format("  {} {:04d}_{}\n", a.dry_run ? "would apply" : "applied", m.version,
                             m.name);
  }
  return kExitOk;
}

int RunSchema(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("output,o", po::value<std::string>(),
                        "write to this file instead of stdout");
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec schema [--output FILE]", options, {}, &vm)) return kExitOk;
  auto store = OpenStore(":memory:");
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
  std::cout << fmt::format("wrote {}\n", path);
  return kExitOk;
}

}  // namespace hwrec::cli
