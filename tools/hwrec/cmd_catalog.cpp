// `hwrec catalog list|import`: show, search and extend the GPU catalog.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/catalog.h"

namespace hwrec::cli {

namespace {

constexpr const char* kCatalogHelp =
    "Usage: hwrec catalog <subcommand> [options]\n\n"
    "Subcommands:\n"
    "  list [STORE] [--search TEXT]   the GPU catalog (this build's when STORE is not given)\n"
    "  import STORE FILE.csv          add cards and MIG profiles from CSV with the header\n"
    "                                 brand,model,card_memory_gb,card_compute_slices,mode,"
    "memory_gb,compute_slices\n"
    "                                 (card_memory_gb and memory_gb in GiB: an A100 80GB holds "
    "80)\n\n"
    "Run `hwrec catalog <subcommand> --help` for its options.\n";

void PrintPartitionsJson(const std::vector<GpuPartition>& partitions) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const GpuPartition& p : partitions) {
    array.push_back(tools::JsonObject("gpu_config_id", p.gpu_config_id, "brand", p.brand, "model",
                                      p.model, "mode", p.mode, "memory_gb", p.memory_gb,
                                      "compute_slices", p.compute_slices, "compute_fraction",
                                      p.compute_fraction));
  }
  std::cout << tools::DumpJson(array) << "\n";
}

void PrintPartitionsTable(const std::vector<GpuPartition>& partitions) {
  Table table({"gpu_config_id", "brand", "model", "mode", "memory_gb", "compute_slices",
               "compute_fraction"});
  for (const GpuPartition& p : partitions) {
    table.AddRow({p.gpu_config_id, p.brand, p.model, p.mode, fmt::format("{:g}", p.memory_gb),
                  std::to_string(p.compute_slices), fmt::format("{:.4g}", p.compute_fraction)});
  }
  table.Print(std::cout);
}

int CatalogList(const std::vector<std::string>& args) {
  std::string store_path, search, format_text;
  CommandLine line("hwrec catalog list [STORE] [--search TEXT] [--format table|json]");
  line.Store(&store_path)
      .Add()("search", po::value<std::string>(&search),
             "only partitions matching every word, e.g. \"a100 1g\"");
  po::variables_map vm;
  if (!line.Format(&format_text).Parse(args, &vm)) return kExitOk;
  const Format format = ParseFormat(format_text);
  StoreOptions store_options;
  store_options.read_only = !store_path.empty();
  store_options.create_if_missing = false;
  // Without a store, list the catalog this build ships: a fresh in-memory store holds it.
  auto store = store_path.empty() ? OpenScratchStore() : OpenStore(store_path, store_options);
  if (!store) return kExitError;
  auto catalog = GpuCatalog::Load(*store);
  if (!catalog.ok()) return Fail(catalog.status());
  const std::vector<GpuPartition> partitions = catalog->Search(search);
  if (format == Format::kJson) {
    PrintPartitionsJson(partitions);
  } else {
    PrintPartitionsTable(partitions);
  }
  return kExitOk;
}

void PrintImportSummary(const CatalogImportSummary& summary, Format format) {
  if (format == Format::kJson) {
    nlohmann::ordered_json out;
    out["added"] = summary.added;
    out["unchanged"] = summary.unchanged;
    out["errors"] = nlohmann::ordered_json::array();
    for (const CatalogImportError& e : summary.errors) {
      out["errors"].push_back({{"line", e.line}, {"field", e.field}, {"reason", e.reason}});
    }
    std::cout << tools::DumpJson(out) << "\n";
    return;
  }
  std::cout << TerminalFormat("added {}, unchanged {}, rejected {}\n", summary.added,
                              summary.unchanged, summary.errors.size());
  if (summary.errors.empty()) return;
  Table table({"line", "field", "reason"});
  for (const CatalogImportError& e : summary.errors) {
    table.AddRow({std::to_string(e.line), e.field, e.reason});
  }
  std::cout << "\n";
  table.Print(std::cout);
}

int CatalogImport(const std::vector<std::string>& args) {
  std::string store_path, file, format_text;
  CommandLine line("hwrec catalog import STORE FILE.csv [--format table|json]");
  line.Store(&store_path)
      .Add()("file", po::value<std::string>(&file), "the CSV file, - for stdin (positional)");
  line.Epilog(
      "The CSV has this header and one row per partition: a card's `full` row and one row\n"
      "per MIG profile, each row repeating the card's own memory and compute slices:\n\n"
      "  brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
      "  Acme,Z9 96GB,96,4,full,96,4\n"
      "  Acme,Z9 96GB,96,4,mig-1g.24gb,24,1\n\n"
      "card_memory_gb and memory_gb are GiB (an A100 80GB holds 80); mode is `full` or\n"
      "mig-<N>g.<memory>, with N its compute slices. Rows identical to the catalog are\n"
      "unchanged; a row that would change a partition the catalog holds is rejected.\n");
  po::variables_map vm;
  if (!line.Positional("file").Format(&format_text).Parse(args, &vm)) return kExitOk;
  const Format format = ParseFormat(format_text);
  if (store_path.empty() || file.empty()) throw UsageError("give the STORE and the FILE.csv");
  std::istringstream csv(ReadInput(file));
  auto store = OpenWritableStore(store_path);
  if (!store) return kExitError;
  return ImportExitCode(ImportCatalogCsv(*store, csv), format, PrintImportSummary);
}

const tools::NestedCommands kCatalog = {
    {{"list", "", CatalogList}, {"import", "", CatalogImport}}, kCatalogHelp, "list or import"};

}  // namespace

int RunCatalog(const std::vector<std::string>& args) { return tools::RunNested(kCatalog, args); }

}  // namespace hwrec::cli
