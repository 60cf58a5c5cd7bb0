// hwrec copy SRC DST: a whole store into an empty one, between engines (a
// SQLite file and PostgreSQL) or between files, all or nothing.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hwrec/store_copy.h"
#include "hwrec/store_location.h"

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"

namespace hwrec::cli {

namespace {

const char* const kCopyUsage =
    "hwrec copy SRC DST [--format table|json]\n\n"
    "Copies every row of the store SRC into DST, each a file path or a PostgreSQL location (URI or "
    "key=value)\n"
    "(SQLite -> PostgreSQL and back, or file -> file), in one transaction of DST: each\n"
    "table's count and the aggregates (against SRC's and a rebuild from the observations)\n"
    "are checked before it commits, and on any failure no row of SRC is in DST. SRC must be\n"
    "at the latest schema without legacy rows; DST must be empty of data (a fresh `hwrec init`,\n"
    "or a file that does not exist yet: copy creates it, and removes it again on failure; an\n"
    "empty PostgreSQL schema is made a fresh store first, and stays one).";

// Whether `location` is a file copy would have to create.
bool IsMissingFile(const std::string& location) {
  if (IsPostgresqlLocation(location)) return false;
  std::error_code ec;
  return !std::filesystem::exists(location, ec) || std::filesystem::file_size(location, ec) == 0;
}

// Removes a store file copy created, with its WAL and shared-memory files.
void RemoveCreatedFile(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path + suffix, ec);
  }
}

void PrintSummary(const CopySummary& s, Format format) {
  if (format == Format::kJson) {
    nlohmann::ordered_json tables = nlohmann::ordered_json::object();
    for (const TableCount& t : s.tables) tables[t.table] = t.rows;
    std::cout << tools::DumpJson(tools::JsonObject("source", s.source, "destination", s.destination,
                                                   "rows", s.rows, "aggregates_checked",
                                                   s.aggregates_checked, "tables", tables))
              << "\n";
    return;
  }
  Table table({"table", "rows"});
  for (const TableCount& t : s.tables) table.AddRow({t.table, std::to_string(t.rows)});
  table.Print(std::cout);
  std::cout << TerminalFormat(
      "copied {} rows in {} tables from {} to {}: every count checked, {} aggregates equal the "
      "source's and a rebuild\n",
      s.rows, s.tables.size(), s.source, s.destination, s.aggregates_checked);
}

}  // namespace

int RunCopy(const std::vector<std::string>& args) {
  std::string source_location;
  std::string destination_location;
  std::string format_text;
  CommandLine line(kCopyUsage);
  line.Add()("source", po::value(&source_location), "SRC: a file path or a PostgreSQL location")(
      "destination", po::value(&destination_location), "DST: a file path or a PostgreSQL location");
  line.Positional("source").Positional("destination").Format(&format_text);
  po::variables_map vm;
  if (!line.Parse(args, &vm)) return kExitOk;
  if (source_location.empty() || destination_location.empty()) {
    throw UsageError(
        "hwrec copy needs SRC and DST: each a file path or a PostgreSQL location (URI or "
        "key=value)");
  }
  const Format format = ParseFormat(format_text);
  auto source = OpenStore(source_location, ReadingStoreOptions(false));
  if (!source) return kExitError;
  const bool create = IsMissingFile(destination_location);
  auto destination = OpenStore(destination_location, tools::CreatingStoreOptions());
  if (!destination) return kExitError;
  auto summary = CopyStore(*source, *destination);
  if (!summary.ok()) {
    destination.reset();
    if (create) RemoveCreatedFile(destination_location);
    return Fail(summary.status());
  }
  PrintSummary(*summary, format);
  return kExitOk;
}

}  // namespace hwrec::cli
