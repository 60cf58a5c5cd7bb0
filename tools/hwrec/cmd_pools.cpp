// `hwrec pools import|list`: register node pools from JSON lines and show them.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"

namespace hwrec::cli {

namespace {

constexpr const char* kPoolsHelp =
    "Usage: hwrec pools <subcommand> [options]\n\n"
    "Subcommands:\n"
    "  import STORE FILE|-   register node pools from JSON lines (- reads stdin)\n"
    "  list STORE            the registered node pools with their hardware and hp:v2 id\n\n"
    "Run `hwrec pools <subcommand> --help` for its options.\n";

template <typename T>
nlohmann::ordered_json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

template <typename T>
std::string OrDash(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : "-";
}

// "NVIDIA A100 80GB", "unknown" when the pool has GPUs of an unrecorded model,
// "-" for a CPU-only pool.
std::string GpuColumn(const NodePool& pool) {
  const HardwareProfile& h = pool.hardware;
  if (h.gpu_model) return h.gpu_brand ? *h.gpu_brand + " " + *h.gpu_model : *h.gpu_model;
  if (h.gpu_count.value_or(0) > 0 || h.gpu_brand) return "unknown";
  return "-";
}

std::string IdOrError(const HardwareProfile& hardware, ProfileIdVersion version) {
  auto id = HardwareProfileId(hardware, version);
  return id.ok() ? *id : "invalid";
}

nlohmann::ordered_json PoolJson(const NodePool& pool) {
  const HardwareProfile& h = pool.hardware;
  return tools::JsonObject(
      "node_pool_id", pool.node_pool_id, "site_id", pool.site_id, "name", pool.name,
      "instance_type", OrNull(h.instance_type), "architecture", OrNull(h.architecture),
      "cpu_millicores", OrNull(h.cpu_millicores), "memory_bytes", OrNull(h.memory_bytes),
      "gpu_brand", OrNull(h.gpu_brand), "gpu_model", OrNull(h.gpu_model), "gpu_model_known",
      pool.gpu_model_known(), "gpu_count", OrNull(h.gpu_count), "gpu_mode", OrNull(h.gpu_mode),
      "gpu_total", OrNull(h.gpu_total), "hp_v1", IdOrError(h, ProfileIdVersion::kV1), "hp_v2",
      IdOrError(h, ProfileIdVersion::kV2));
}

// The pool's gpu_mode; "unknown" when it has GPUs but no recorded mode.
std::string ModeColumn(const HardwareProfile& h) {
  if (!h.gpu_mode && h.gpu_count.value_or(0) > 0) return "unknown";
  return OrDash(h.gpu_mode);
}

void PrintPoolsTable(const std::vector<NodePool>& pools) {
  Table table({"node_pool_id", "site_id", "name", "instance_type", "architecture", "cpu_millicores",
               "memory_bytes", "gpu", "gpu_count", "gpu_mode", "gpu_total", "hp_v2"});
  for (const NodePool& pool : pools) {
    const HardwareProfile& h = pool.hardware;
    table.AddRow({pool.node_pool_id, pool.site_id, pool.name.empty() ? "-" : pool.name,
                  OrDash(h.instance_type), OrDash(h.architecture), OrDash(h.cpu_millicores),
                  OrDash(h.memory_bytes), GpuColumn(pool), OrDash(h.gpu_count), ModeColumn(h),
                  OrDash(h.gpu_total), IdOrError(h, ProfileIdVersion::kV2)});
  }
  table.Print(std::cout);
}

void PrintPools(const std::vector<NodePool>& pools, Format format) {
  if (format != Format::kJson) return PrintPoolsTable(pools);
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const NodePool& pool : pools) array.push_back(PoolJson(pool));
  std::cout << tools::DumpJson(array) << "\n";
}

int PoolsList(const std::vector<std::string>& args) {
  return RunListing(
      ParseStoreAndFormat(args, "hwrec pools list STORE [--format table|json]",
                          tools::kStoreArgumentHelp, "give the STORE", true),
      [](const Store& store) { return ListNodePools(store); }, PrintPools);
}

nlohmann::ordered_json ImportErrorsJson(const std::vector<PoolImportError>& errors) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PoolImportError& e : errors) {
    out.push_back(tools::JsonObject("line", e.line, "node_pool_id", e.node_pool_id, "field",
                                    e.field, "reason", e.reason));
  }
  return out;
}

void PrintImportErrors(const char* heading, const std::vector<PoolImportError>& errors) {
  if (errors.empty()) return;
  Table table({"line", "node_pool_id", "field", "reason"});
  for (const PoolImportError& e : errors) {
    table.AddRow(
        {std::to_string(e.line), e.node_pool_id.empty() ? "-" : e.node_pool_id, e.field, e.reason});
  }
  std::cout << "\n" << heading;
  table.Print(std::cout);
}

void PrintImportSummary(const PoolImportSummary& summary, Format format) {
  if (format == Format::kJson) {
    std::cout << tools::DumpJson(tools::JsonObject("registered", summary.registered, "updated",
                                                   summary.updated, "unchanged", summary.unchanged,
                                                   "errors", ImportErrorsJson(summary.errors),
                                                   "warnings", ImportErrorsJson(summary.warnings)))
              << "\n";
    return;
  }
  std::cout << TerminalFormat("registered {}, updated {}, unchanged {}, rejected {}\n",
                              summary.registered, summary.updated, summary.unchanged,
                              summary.errors.size());
  PrintImportErrors("", summary.errors);
  PrintImportErrors("Registered with a remark (the field is ignored):\n", summary.warnings);
}

int PoolsImport(const std::vector<std::string>& args) {
  std::string store_path;
  std::string file;
  std::string format_text;
  std::string from_text;
  CommandLine line(
      "hwrec pools import STORE FILE|- [--format table|json] [--from auto|hwrec|runner]\n\n"
      "Pools are in hwrec's form or the Runner's RunnerNodePool (docs/RUNNER.md);\n"
      "--from auto (the default) tells them apart per line.");
  line.Store(&store_path)
      .Add()("file", po::value<std::string>(&file),
             "JSON lines, one pool each; - for stdin (positional)");
  po::variables_map vm;
  if (!line.Positional("file").Format(&format_text).From(&from_text).Parse(args, &vm)) {
    return kExitOk;
  }
  const Format format = ParseFormat(format_text);
  const RecordForm form = ParseFromOption(from_text);
  if (store_path.empty() || file.empty()) throw UsageError("give the STORE and the FILE (or -)");
  std::istringstream lines(ReadInput(file));
  auto store = OpenWritableStore(store_path);
  if (!store) return kExitError;
  return ImportExitCode(ImportNodePools(*store, lines, form), format, PrintImportSummary);
}

const tools::NestedCommands kPools = {
    {{"import", "", PoolsImport}, {"list", "", PoolsList}}, kPoolsHelp, "import or list"};

}  // namespace

int RunPools(const std::vector<std::string>& args) { return tools::RunNested(kPools, args); }

}  // namespace hwrec::cli
