// hwrec quarantine list | resolve: the legacy rows the hp:v2 migration held
// back because their GPU model could not be resolved, and attaching one (or
// releasing rows of pools with no recorded model into the unknown population).
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/observation.h"
#include "hwrec/time_text.h"

namespace hwrec::cli {

namespace {

const char* const kQuarantineUsage =
    "hwrec quarantine list STORE [FILTER] [--format table|json]\n"
    "       hwrec quarantine resolve STORE [--gpu-model MODEL [--gpu-brand BRAND]]\n"
    "                                (FILTER | --all) [--format table|json]\n\n"
    "FILTER: any of --id N[,N...], --site S, --node-pool P, --gpu-name NAME\n"
    "(the GPU name the rows carry), --reason CODE. `resolve` attaches the catalog\n"
    "model to the selected rows, moves them into observations and refreshes the\n"
    "recommendations; rows the model does not fit stay, with the new reason.\n"
    "A CPU-only row, or one quarantined for a value (invalid_field, mended since\n"
    "in legacy_quarantine), goes by its own hardware as the migration routes it;\n"
    "without --gpu-model, every selected row goes so or stays.\n"
    "--gpu-model unknown releases rows of GPU pools with no recorded model into the\n"
    "shared unknown-model population (no model, the MIG share assumed from config\n"
    "total_compute_slices), never guessed: e.g. --reason pool_without_gpu_model.\n"
    "A row that records a GPU name stays: attach its catalog model instead.";

struct QuarantineArgs {
  std::string action;
  std::string store;
  QuarantineFilter filter;
  std::string gpu_model;
  std::optional<std::string> gpu_brand;
  bool all = false;
  Format format = Format::kTable;
};

std::optional<std::string> Optional(const po::variables_map& vm, const char* name) {
  if (vm.count(name) == 0) return std::nullopt;
  return vm[name].as<std::string>();
}

// "3,7,9" -> {3, 7, 9}; throws UsageError naming the bad part.
std::vector<std::int64_t> ParseIds(const std::string& text) {
  std::vector<std::int64_t> ids;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, end - start);
    std::size_t used = 0;
    long long id = 0;
    try {
      id = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || id < 1) {
      throw UsageError(
          fmt::format("--id '{}' is not a row id: give ids from `hwrec quarantine "
                      "list`, comma-separated",
                      part));
    }
    ids.push_back(id);
    start = end + 1;
  }
  return ids;
}

std::optional<QuarantineArgs> Parse(const std::vector<std::string>& args) {
  po::options_description options("Options");
  std::string format_text;
  QuarantineArgs a;
  std::string ids;
  options.add_options()("action", po::value<std::string>(&a.action), "list or resolve")(
      "store", po::value<std::string>(&a.store), kStorePathHelp)(
      "id", po::value<std::string>(&ids), "quarantined row ids, comma-separated: 3,7,9")(
      "site", po::value<std::string>(), "rows of this site")("node-pool", po::value<std::string>(),
                                                             "rows of this node pool")(
      "gpu-name", po::value<std::string>(), "rows carrying this GPU name")(
      "reason", po::value<std::string>(), "rows quarantined for this reason code")(
      "gpu-model", po::value<std::string>(&a.gpu_model),
      "resolve: the catalog model to attach, or `unknown` for the unknown-model population")(
      "gpu-brand", po::value<std::string>(), "resolve: the catalog brand (optional)")(
      "all", po::bool_switch(&a.all), "resolve: every quarantined row");
  AddFormatOption(options, &format_text);
  po::positional_options_description positional;
  positional.add("action", 1).add("store", 1);
  po::variables_map vm;
  if (!ParseArgs(args, kQuarantineUsage, options, positional, &vm)) return std::nullopt;
  if (a.action != "list" && a.action != "resolve") {
    throw UsageError(
        "say what to do: `hwrec quarantine list STORE` or `hwrec quarantine resolve "
        "STORE [--gpu-model MODEL] (FILTER | --all)`");
  }
  if (a.store.empty()) throw UsageError(kStoreRequired);
  if (vm.count("gpu-model") != 0 && a.gpu_model.empty()) {
    throw UsageError(
        "--gpu-model is empty: give the catalog spelling (e.g. 'A100 80GB'), or leave it out "
        "to resolve rows by their own hardware");
  }
  if (vm.count("gpu-brand") != 0 && a.gpu_model.empty()) {
    throw UsageError("--gpu-brand needs --gpu-model: name the model too, or leave both out");
  }
  if (vm.count("gpu-brand") != 0 && a.gpu_model == kUnknownGpuModel) {
    throw UsageError(
        "--gpu-brand is given with --gpu-model unknown: a GPU of unknown model joins its "
        "population without a brand, so leave --gpu-brand out");
  }
  a.filter.ids = ParseIds(ids);
  a.filter.site_id = Optional(vm, "site");
  a.filter.node_pool_id = Optional(vm, "node-pool");
  a.filter.node_pool_gpu = Optional(vm, "gpu-name");
  a.filter.reason_code = Optional(vm, "reason");
  a.gpu_brand = Optional(vm, "gpu-brand");
  a.format = ParseFormat(format_text);
  return a;
}

nlohmann::ordered_json RowJson(const QuarantinedRow& r) {
  auto text = [](const std::optional<std::string>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  return {{"id", r.id},
          {"execution_id", r.execution_id},
          {"site_id", r.site_id},
          {"node_pool_id", text(r.node_pool_id)},
          {"action_image", r.action_image},
          {"finished_at", r.finished_at ? nlohmann::ordered_json(FormatTime(*r.finished_at))
                                        : nlohmann::ordered_json()},
          {"instance_type", text(r.instance_type)},
          {"gpu_mode", text(r.gpu_mode)},
          {"node_pool_gpu", text(r.node_pool_gpu)},
          {"hardware_profile_id", text(r.hardware_profile_id)},
          {"reason_code", r.reason_code},
          {"reason", r.reason}};
}

void PrintRows(const std::vector<QuarantinedRow>& rows) {
  Table table({"id", "execution_id", "site", "node_pool", "gpu_name", "gpu_mode", "reason_code"});
  for (const QuarantinedRow& r : rows) {
    table.AddRow({std::to_string(r.id), r.execution_id, r.site_id, r.node_pool_id.value_or("-"),
                  r.node_pool_gpu.value_or("-"), r.gpu_mode.value_or("-"), r.reason_code});
  }
  table.Print(std::cout);
}

int List(const QuarantineArgs& a) {
  StoreOptions options;
  options.read_only = true;
  auto store = OpenStore(a.store, options);
  if (!store) return kExitError;
  auto rows = ListQuarantine(*store, a.filter);
  if (!rows.ok()) return Fail(rows.status());
  if (a.format == Format::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const QuarantinedRow& r : *rows) out.push_back(RowJson(r));
    std::cout << tools::DumpJson(out) << "\n";
    return kExitOk;
  }
  if (rows->empty()) {
    std::cout << TerminalFormat("{}: no quarantined rows{}\n", store->path(),
                                a.filter.empty() ? "" : " match");
    return kExitOk;
  }
  PrintRows(*rows);
  return kExitOk;
}

int Resolve(const QuarantineArgs& a) {
  auto store = OpenWritableStore(a.store);
  if (!store) return kExitError;
  QuarantineResolveOptions options;
  options.filter = a.filter;
  options.all = a.all;
  options.gpu_brand = a.gpu_brand;
  if (!a.gpu_model.empty()) options.gpu_model = a.gpu_model;
  auto summary = ResolveQuarantine(*store, options);
  if (!summary.ok()) return Fail(summary.status());
  if (a.format == Format::kJson) {
    nlohmann::ordered_json out;
    out["matched"] = summary->matched;
    out["moved"] = summary->moved;
    out["moved_by_own_hardware"] = summary->moved_by_own_hardware;
    out["kept"] = nlohmann::ordered_json::array();
    for (const QuarantinedRow& r : summary->kept) out["kept"].push_back(RowJson(r));
    out["recommendations"] = summary->recommendations;
    std::cout << tools::DumpJson(out) << "\n";
  } else {
    const std::optional<std::string>& model = options.gpu_model;
    const std::string as =
        model && *model == kUnknownGpuModel ? std::string("a GPU of unknown model") : a.gpu_model;
    const std::string how = model ? fmt::format(" ({} as {}, {} by their own hardware)",
                                                summary->moved - summary->moved_by_own_hardware, as,
                                                summary->moved_by_own_hardware)
                                  : std::string(" by their own hardware");
    std::cout << TerminalFormat(
        "{}: {} row(s) matched, {} moved into observations{}, {} kept; recommendations "
        "refreshed: {}\n",
        store->path(), summary->matched, summary->moved, how, summary->kept.size(),
        summary->recommendations);
    for (const QuarantinedRow& r : summary->kept) {
      std::cout << TerminalFormat("  kept {} ({}): {}\n", r.id, r.execution_id, r.reason);
    }
  }
  return summary->kept.empty() ? kExitOk : kExitPartial;
}

}  // namespace

int RunQuarantine(const std::vector<std::string>& args) {
  const std::optional<QuarantineArgs> a = Parse(args);
  if (!a) return kExitOk;
  return a->action == "list" ? List(*a) : Resolve(*a);
}

}  // namespace hwrec::cli
