// hwrec init | status | schema: creating and inspecting stores (hwrec migrate
// is in cmd_migrate.cpp).
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hwrec/legacy_migration.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/store_location.h"
#include "hwrec/time_text.h"

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"

namespace hwrec::cli {

namespace {

struct StoreArgs : StoreAndFormat {
  bool strict_read_only = false;
  bool help = false;
};

// Parses `<command> STORE [--format] [--read-only]`.
StoreArgs ParseStoreArgs(const std::vector<std::string>& args, const std::string& usage,
                         bool with_format, bool with_read_only = false) {
  std::string format_text;
  CommandLine line(usage);
  line.Store(nullptr, kStorePathHelp);
  if (with_format) line.Format(&format_text);
  StoreArgs parsed;
  if (with_read_only) line.ReadOnly(&parsed.strict_read_only);
  po::variables_map vm;
  if (!line.Parse(args, &vm)) {
    parsed.help = true;
    return parsed;
  }
  parsed.store = RequiredStore(vm);
  if (with_format) parsed.format = ParseFormat(format_text);
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
  const bool file = s.engine != "postgresql";
  std::cout << TerminalFormat("store:          {}\n", s.path)
            << fmt::format("engine:         {}\n", s.engine)
            << fmt::format("schema version: {} (this build: {})\n", s.schema_version,
                           s.latest_schema_version)
            << fmt::format("hardware ids:   {}\n", s.hp_version);
  if (file) {
    std::cout << fmt::format("journal mode:   {}{}\n", s.journal_mode,
                             JournalNote(s.journal_mode, s.immutable));
  }
  std::cout << fmt::format("opened:         {}\n", s.opened);
  if (file) {
    std::cout << fmt::format("file size:      {} ({} bytes; WAL {} bytes)\n",
                             HumanBytes(s.file_size_bytes), s.file_size_bytes, s.wal_size_bytes);
  } else {
    std::cout << fmt::format("size:           {} ({} bytes of tables and indexes)\n",
                             HumanBytes(s.file_size_bytes), s.file_size_bytes);
  }
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
    out.push_back(tools::JsonObject("version", m.version, "name", m.name, "checksum", m.checksum,
                                    "applied", m.applied, "applied_at",
                                    m.applied ? nlohmann::ordered_json(m.applied_at) : nullptr));
  }
  return out;
}

// Whether `location` holds a store already: a file that is not empty, or a
// PostgreSQL database (or search_path schema) that opens as one.
bool StoreExists(const std::string& location) {
  if (IsPostgresqlLocation(location)) return Store::Open(location).ok();
  std::error_code ec;
  return std::filesystem::file_size(location, ec) > 0 && !ec;
}

}  // namespace

int RunInit(const std::vector<std::string>& args) {
  const StoreArgs a = ParseStoreArgs(args, "hwrec init STORE", false);
  if (a.help) return kExitOk;
  const bool existed = StoreExists(a.store);
  StoreOptions options;
  options.create_if_missing = true;  // init is the one command that makes a store
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  if (existed && store->schema_version() < Store::LatestSchemaVersion()) {
    std::cout << TerminalFormat(
        "{}: store already exists at schema {} (this build: {}): run `hwrec migrate {}`\n",
        store->path(), store->schema_version(), Store::LatestSchemaVersion(), store->path());
    return kExitOk;
  }
  std::cout << TerminalFormat("{}: {} at schema {}\n", store->path(),
                              existed ? "store already initialised" : "created store",
                              store->schema_version());
  return kExitOk;
}

int RunStatus(const std::vector<std::string>& args) {
  const StoreArgs a =
      ParseStoreArgs(args, "hwrec status STORE [--read-only] [--format table|json]", true, true);
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
  const bool file = status->engine != "postgresql";
  auto file_only = [file](auto value) {
    return file ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
  };
  out["path"] = status->path;
  out["engine"] = status->engine;
  out["schema_version"] = status->schema_version;
  out["latest_schema_version"] = status->latest_schema_version;
  out["hp_version"] = status->hp_version;
  out["journal_mode"] = file_only(status->journal_mode);  // null on PostgreSQL
  out["file_size_bytes"] = status->file_size_bytes;       // tables and indexes on PostgreSQL
  out["wal_size_bytes"] = file_only(status->wal_size_bytes);
  out["opened"] = status->opened;
  out["immutable"] = status->immutable;
  out["schema_problem"] = status->schema_problem.empty()
                              ? nlohmann::ordered_json()
                              : nlohmann::ordered_json(status->schema_problem);
  out["tables"] = nlohmann::ordered_json::object();
  for (const TableCount& t : status->tables) out["tables"][t.table] = t.rows;
  out["migrations"] = MigrationsJson(*migrations);
  std::cout << tools::DumpJson(out) << "\n";
  return kExitOk;
}

int RunSchema(const std::vector<std::string>& args) {
  std::string store_path;
  CommandLine line(
      "hwrec schema [STORE] [--output FILE]\n\n"
      "Prints the full schema of STORE (a SQLite file or a PostgreSQL location); without\n"
      "STORE, of a fresh SQLite store: what schema/schema.sql holds.");
  line.Store(&store_path, "the store to dump (default: a fresh SQLite store)")
      .Add()("output,o", po::value<std::string>(), "write to this file instead of stdout");
  po::variables_map vm;
  if (!line.Parse(args, &vm)) return kExitOk;
  auto store =
      store_path.empty() ? OpenScratchStore() : OpenStore(store_path, ReadingStoreOptions(false));
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
