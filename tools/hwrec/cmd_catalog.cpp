// `hwrec catalog list|import`: show, search and extend the GPU catalog.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "hwrec/catalog.h"
#include "terminal_text.h"

namespace hwrec::cli {

namespace {

constexpr const char* kCatalogHelp =
    "Usage: hwrec catalog <subcommand> [options]\n\n"
    "Subcommands:\n"
    "  list [STORE] [--search TEXT]   the GPU catalog (this build's when STORE is not given)\n"
    "  import STORE FILE.csv          add cards and MIG profiles from CSV with the header\n"
    "                                 brand,model,card_memory_gb,card_compute_slices,mode,"
    "memory_gb,compute_slices\n\n"
    "Run `hwrec catalog <subcommand> --help` for its options.\n";

void PrintPartitionsJson(const std::vector<GpuPartition>& partitions) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const GpuPartition& p : partitions) {
    nlohmann::ordered_json object;
    object["gpu_config_id"] = p.gpu_config_id;
    object["brand"] = p.brand;
    object["model"] = p.model;
    object["mode"] = p.mode;
    object["memory_gb"] = p.memory_gb;
    object["compute_slices"] = p.compute_slices;
    object["compute_fraction"] = p.compute_fraction;
    array.push_back(std::move(object));
  }
  std::cout << DumpJson(array) << "\n";
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
  std::string store_path;
  std::string search;
  std::string format_text;
  po::options_description options("Options");
  options.add_options()("store", po::value<std::string>(&store_path), "the store (positional)")(
      "search", po::value<std::string>(&search),
      "only partitions matching every word, e.g. \"a100 1g\"");
  AddFormatOption(options, &format_text);
  po::positional_options_description positional;
  positional.add("store", 1);
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec catalog list [STORE] [--search TEXT] [--format table|json]", options,
                 positional, &vm)) {
    return kExitOk;
  }
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
    std::cout << DumpJson(out) << "\n";
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
  std::string store_path;
  std::string file;
  std::string format_text;
  po::options_description options("Options");
  options.add_options()("store", po::value<std::string>(&store_path), "the store (positional)")(
      "file", po::value<std::string>(&file), "the CSV file, - for stdin (positional)");
  AddFormatOption(options, &format_text);
  po::positional_options_description positional;
  positional.add("store", 1).add("file", 1);
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec catalog import STORE FILE.csv [--format table|json]", options,
                 positional, &vm)) {
    return kExitOk;
  }
  const Format format = ParseFormat(format_text);
  if (store_path.empty() || file.empty()) throw UsageError("give the STORE and the FILE.csv");
  std::istringstream csv(ReadInput(file));
  auto store = OpenWritableStore(store_path);
  if (!store) return kExitError;
  auto summary = ImportCatalogCsv(*store, csv);
  if (!summary.ok()) return Fail(summary.status());
  PrintImportSummary(*summary, format);
  return summary->errors.empty() ? kExitOk : kExitPartial;
}

}  // namespace

int RunCatalog(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("missing subcommand: use list or import");
  const std::string& subcommand = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (subcommand == "-h" || subcommand == "--help" || subcommand == "help") {
    std::cout << kCatalogHelp;
    return kExitOk;
  }
  if (subcommand == "list") return CatalogList(rest);
  if (subcommand == "import") return CatalogImport(rest);
  throw UsageError(fmt::format("unknown subcommand '{}': use list or import", subcommand));
}

}  // namespace hwrec::cli
