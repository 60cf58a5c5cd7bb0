// hwrec recommend: what a workload should request on one kind of hardware.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/recommend.h"
#include "hwrec/time_text.h"

namespace hwrec::cli {

namespace {

// The hardware key from --pool, or from --gpu-brand/--gpu-model/--instance-type.
Result<HardwareKey> ResolveKey(const Store& store, const po::variables_map& vm) {
  if (vm.count("pool") != 0) {
    if (vm.count("gpu-model") + vm.count("gpu-brand") + vm.count("instance-type") != 0) {
      throw UsageError(
          "--pool names the hardware: leave out --gpu-model, --gpu-brand and "
          "--instance-type");
    }
    const std::string id = vm["pool"].as<std::string>();
    auto pool = FindNodePool(store, id);
    if (!pool.ok()) return pool.status();
    if (!pool->has_value()) {
      return Status::NotFound(fmt::format(
          "node pool '{}' is not registered: see `hwrec pools list {}`", id, store.path()));
    }
    return HardwareKey::Of(**pool);
  }
  HardwareKey key;
  if (vm.count("instance-type") != 0) key.instance_type = vm["instance-type"].as<std::string>();
  if (vm.count("gpu-model") == 0) {
    key.cpu_only = vm.count("gpu-brand") == 0;
    if (!key.cpu_only) key.gpu_brand = vm["gpu-brand"].as<std::string>();
    return key;
  }
  key.gpu_model = vm["gpu-model"].as<std::string>();
  if (vm.count("gpu-brand") != 0) key.gpu_brand = vm["gpu-brand"].as<std::string>();
  return ResolveHardwareKey(store, std::move(key), "--gpu-model");
}

nlohmann::ordered_json OrNull(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json OrNull(const std::optional<std::string>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::optional<std::string> TimeOf(const std::optional<double>& epoch_seconds) {
  if (!epoch_seconds) return std::nullopt;
  return FormatTime(*epoch_seconds);
}

std::string Cell(const std::optional<double>& v) {
  if (!v) return "-";
  if (std::fabs(*v) >= 1e6 || std::floor(*v) == *v) return fmt::format("{:.0f}", *v);
  return fmt::format("{:.4g}", *v);
}

// A derived amount to 12 significant digits: 34.32, not 34.320000000000004.
double Tidy(double value) { return std::stod(fmt::format("{:.12g}", value)); }

std::optional<double> Tidy(const std::optional<double>& value) {
  if (!value) return std::nullopt;
  return Tidy(*value);
}

// --explain's `why` of one figure: the reason's fields, then its text.
nlohmann::ordered_json WhyJson(const FigureReason& why) {
  nlohmann::ordered_json j = {{"source", std::string(ToString(why.source))},
                              {"statistic", why.statistic},
                              {"statistic_value", Tidy(why.statistic_value)}};
  if (why.source == FigureReason::Source::kMaxOfRecent) {
    j["execution_id"] = why.execution_id.empty() ? nlohmann::ordered_json(nullptr)
                                                 : nlohmann::ordered_json(why.execution_id);
    j["finished_at"] = OrNull(TimeOf(why.finished_at));
    j["status"] =
        why.status.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(why.status);
    j["oom_bump"] = nullptr;
    if (why.oom_factor) {
      j["oom_bump"] = {{"factor", *why.oom_factor},
                       {"applied_to", why.oom_applied_to},
                       {"base", OrNull(Tidy(why.oom_base))}};
    }
  }
  if (why.source == FigureReason::Source::kPercentile) {
    j["bucket"] = {{"lower", OrNull(Tidy(why.bucket_lower))},
                   {"upper", OrNull(Tidy(why.bucket_upper))}};
    j["share_at_or_below"] = OrNull(Tidy(why.share_at_or_below));
  }
  j["margin"] = why.margin;
  j["with_margin"] = Tidy(why.with_margin);
  j["rounding"] = why.rounding;
  j["value"] = why.value;
  j["text"] = why.text;
  return j;
}

// A hardware key's three parts, null where absent.
nlohmann::ordered_json KeyJson(const HardwareKey& key) {
  return {{"gpu_brand", OrNull(key.gpu_brand)},
          {"gpu_model", OrNull(key.gpu_model)},
          {"instance_type", OrNull(key.instance_type)}};
}

// Where a transferred figure came from (Figure::transfer); null otherwise.
nlohmann::ordered_json TransferJson(const Figure& f) {
  if (!f.transfer) return nullptr;
  const FigureTransfer& t = *f.transfer;
  return {{"source", KeyJson(t.source)}, {"source_value", Tidy(t.source_value)},
          {"factor", Tidy(t.factor)},    {"workloads", t.workloads},
          {"neighbours", t.neighbours},  {"sources", t.sources},
          {"spread", Tidy(t.spread)},    {"estimate", Tidy(t.estimate)}};
}

void PrintJson(const Recommendation& r, bool explain) {
  nlohmann::ordered_json out;
  out["workload"] = r.workload;
  out["hardware"] = KeyJson(r.hardware);
  out["as_of"] = FormatTime(r.as_of);
  out["width"] = r.width ? nlohmann::ordered_json(*r.width) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json figures = nlohmann::ordered_json::object();
  for (const Figure& f : r.figures) {
    nlohmann::ordered_json j = {{"value", OrNull(f.value)},
                                {"provenance", std::string(ToString(f.provenance))},
                                {"samples", f.samples},
                                {"confidence", std::round(f.confidence * 1000) / 1000},
                                {"lower", OrNull(f.lower)},
                                {"upper", OrNull(f.upper)},
                                {"last_seen", OrNull(TimeOf(f.last_seen))}};
    if (f.kind == FigureKind::kGpuMemoryGb) {
      j["learned_width"] = f.learned_width ? nlohmann::ordered_json(*f.learned_width)
                                           : nlohmann::ordered_json(nullptr);
    }
    if (f.kind == FigureKind::kGpuComputeFraction) j["held_share"] = f.held_share;
    j["transfer"] = TransferJson(f);
    if (explain) {
      j["statistic"] = f.statistic;
      j["margin"] = f.margin;
      j["half_life_hours"] = f.half_life_hours;
      j["why"] = f.reason ? WhyJson(*f.reason) : nlohmann::ordered_json(nullptr);
    }
    figures[std::string(ToString(f.kind))] = j;
  }
  out["figures"] = figures;
  std::cout << tools::DumpJson(out) << "\n";
}

// Which width the GPU memory figure was learned at, for an answer at a width.
std::string WidthLine(const Recommendation& r) {
  const Figure& f = r.figure(FigureKind::kGpuMemoryGb);
  if (!f.value) return fmt::format("width:     {} GPU(s) held per execution\n", *r.width);
  if (!f.learned_width) {
    return fmt::format(
        "width:     {} GPU(s) held per execution; gpu_memory_gb learned from executions that did "
        "not say how many they held (width unknown)\n",
        *r.width);
  }
  if (*f.learned_width == *r.width) {
    return fmt::format(
        "width:     {} GPU(s) held per execution; gpu_memory_gb learned at width {}\n", *r.width,
        *f.learned_width);
  }
  return fmt::format(
      "width:     {} GPU(s) held per execution; gpu_memory_gb learned at width {}, the nearest "
      "width it ran at (none held {}; not scaled)\n",
      *r.width, *f.learned_width, *r.width);
}

// A compute share learned from shares held, not measured use, says so.
std::string ProvenanceCell(const Figure& f) {
  std::string cell(ToString(f.provenance));
  if (f.held_share) cell += " (held share)";
  if (f.transfer) {
    cell +=
        fmt::format(" from {} x{}",
                    f.transfer->source.gpu_model ? *f.transfer->source.gpu_model
                                                 : f.transfer->source.instance_type.value_or("?"),
                    Cell(std::optional<double>(f.transfer->factor)));
  }
  return cell;
}

void PrintTable(const Recommendation& r, bool explain) {
  std::cout << TerminalFormat(
      "workload:  {}\nhardware:  {} {} on {}\nas of:     {}\n", r.workload,
      r.hardware.gpu_brand.value_or(r.hardware.cpu_only ? "" : "?"),
      r.hardware.cpu_only ? "no GPU" : r.hardware.gpu_model.value_or("unknown model"),
      r.hardware.instance_type.value_or("unknown instance type"), FormatTime(r.as_of));
  if (r.width && !r.hardware.cpu_only) std::cout << WidthLine(r);
  std::cout << "\n";
  std::vector<std::string> headers = {"figure",     "value", "provenance", "samples",
                                      "confidence", "lower", "upper",      "last seen"};
  if (explain) headers.insert(headers.end(), {"statistic", "margin", "half-life"});
  Table table(headers);
  for (const Figure& f : r.figures) {
    std::vector<std::string> row = {std::string(ToString(f.kind)),
                                    Cell(f.value),
                                    ProvenanceCell(f),
                                    std::to_string(f.samples),
                                    fmt::format("{:.2f}", f.confidence),
                                    Cell(f.lower),
                                    Cell(f.upper),
                                    TimeOf(f.last_seen).value_or("-")};
    if (explain) {
      row.push_back(f.statistic);
      row.push_back(fmt::format("+{:g}%", f.margin * 100));
      row.push_back(fmt::format("{:g} h", f.half_life_hours));
    }
    table.AddRow(row);
  }
  table.Print(std::cout);
  if (!explain) return;
  std::string why;
  for (const Figure& f : r.figures) {
    if (f.reason)
      why += fmt::format("  {} {}: {}\n", ToString(f.kind), Cell(f.value), f.reason->text);
  }
  if (!why.empty()) std::cout << "\nwhy:\n" << why;
}

}  // namespace

int RunRecommend(const std::vector<std::string>& args) {
  std::string format_text;
  CommandLine line(
      "hwrec recommend STORE --image IMG [--gpu-model M] [--instance-type T | --pool "
      "ID] [--width N] [--as-of TIME] [--explain] [--format table|json]");
  line.Store(nullptr, kStorePathHelp)
      .Add()("image", po::value<std::string>()->required(), "the workload (action image)")(
          "gpu-model", po::value<std::string>(),
          "catalog GPU model, e.g. \"A100 80GB\"; `unknown` for pools whose model is not recorded; "
          "leave out for CPU-only hardware")("gpu-brand", po::value<std::string>(),
                                             "GPU brand (default: from the catalog)")(
          "instance-type", po::value<std::string>(), "instance type (node shape)")(
          "pool", po::value<std::string>(), "a registered node pool: its hardware is the key")(
          "width", po::value<std::int64_t>(),
          "GPUs held per execution: gpu_memory_gb per GPU of executions that held that many "
          "(default: every width)")("as-of", po::value<std::string>(), kAsOfHelp)(
          "explain", po::bool_switch(),
          "show the statistic, margin and half-life of each figure, and why it is what it is: the "
          "execution that set a max, the bucket of a percentile, the margin and rounding");
  bool strict_read_only = false;
  po::variables_map vm;
  if (!line.ReadOnly(&strict_read_only).Format(&format_text).Parse(args, &vm)) return kExitOk;
  const std::string path = RequiredStore(vm);
  const Format format = ParseFormat(format_text);
  const std::optional<double> as_of = ReadAsOf(vm);
  auto store = OpenStore(path, ReadingStoreOptions(strict_read_only));
  if (!store) return kExitError;
  auto key = ResolveKey(*store, vm);
  if (!key.ok()) return Fail(key.status());
  auto query = RecommendationQuery::Open(*store);
  if (!query.ok()) return Fail(query.status());
  const bool explain = vm["explain"].as<bool>();
  std::optional<std::int64_t> width;
  if (vm.count("width") != 0) width = vm["width"].as<std::int64_t>();
  auto recommendation = (*query)->Recommend(vm["image"].as<std::string>(), *key, as_of,
                                            explain ? Explain::kYes : Explain::kNo, width);
  if (!recommendation.ok()) return Fail(recommendation.status());
  if (format == Format::kJson) {
    PrintJson(*recommendation, explain);
  } else {
    PrintTable(*recommendation, explain);
  }
  return kExitOk;
}

}  // namespace hwrec::cli
