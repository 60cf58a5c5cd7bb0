// TransferSource (transfer_source.h): the TransferTables read from the
// aggregates, and the FigureTransfer of one figure on one key.
#include "recommend/transfer_source.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "aggregate/aggregator.h"
#include "recommend/estimator.h"

namespace hwrec::internal {

namespace {

// A card's key in a table: brand and model apart by a byte no name holds.
constexpr char kCardSeparator = '\x1f';

std::string CardKey(std::string_view brand, std::string_view model) {
  std::string key(brand);
  key += kCardSeparator;
  key += model;
  return key;
}

HardwareKey KeyOfTable(bool gpu, const std::string& key) {
  HardwareKey out;
  if (!gpu) {
    out.instance_type = key;
    return out;
  }
  const std::size_t split = key.find(kCardSeparator);
  out.gpu_brand = key.substr(0, split);
  out.gpu_model = key.substr(split + 1);
  return out;
}

}  // namespace

TransferSource::TransferSource(store::Connection& db) : db_(db) {}

void TransferSource::Drop() {
  for (auto& table : tables_) table.reset();
  answers_.clear();
  stale_ = false;
}

void TransferSource::KeepFor(bool changed, double refresh_seconds) {
  if (!changed && !stale_) return;
  const bool any =
      std::any_of(tables_.begin(), tables_.end(), [](const auto& t) { return t != nullptr; });
  if (!any) return;
  const std::chrono::duration<double> age = std::chrono::steady_clock::now() - read_at_;
  if (refresh_seconds <= 0 || age.count() >= refresh_seconds) {
    Drop();
  } else {
    stale_ = true;  // the store moved on: dropped once old enough, changed again or not
  }
}

void TransferSource::ReadScope(bool gpu, const RecommenderSettings& settings) {
  TransferSettings transfer;
  transfer.min_workloads = settings.transfer_min_workloads;
  // Kept only once whole: a scan that throws leaves no table behind.
  std::array<std::unique_ptr<TransferTable>, kFigureCount> tables;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    if (IsGpuFigure(static_cast<FigureKind>(f)) == gpu) {
      tables[f] = std::make_unique<TransferTable>(transfer);
    }
  }
  // Cards of unknown model ("") and instance types not recorded are no key.
  auto rows =
      db_.Prepare(gpu ? "SELECT workload_id, state, gpu_brand, gpu_model FROM aggregates "
                        "WHERE scope = 'gpu_model' AND width = 0 AND gpu_model <> ''"
                      : "SELECT workload_id, state, instance_type FROM aggregates "
                        "WHERE scope = 'instance_type' AND width = 0 AND instance_type <> ''");
  while (rows->Step()) {
    const KeyAggregate aggregate = AggregateFromState(rows->Blob(1));
    const std::string key =
        gpu ? CardKey(rows->Text(2), rows->Text(3)) : std::string(rows->Text(2));
    for (std::size_t f = 0; f < kFigureCount; ++f) {
      const auto kind = static_cast<FigureKind>(f);
      if (IsGpuFigure(kind) != gpu) continue;
      const std::optional<double> value = FigureStatistic(kind, aggregate.metric(kind), settings);
      if (value) tables[f]->Add(rows->Int64(0), key, *value);
    }
  }
  const bool first =
      std::none_of(tables_.begin(), tables_.end(), [](const auto& t) { return t != nullptr; });
  if (first) read_at_ = std::chrono::steady_clock::now();
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    if (tables[f]) tables_[f] = std::move(tables[f]);
  }
}

const TransferTable& TransferSource::Table(FigureKind kind, const RecommenderSettings& settings) {
  auto& table = tables_[static_cast<std::size_t>(kind)];
  if (!table) ReadScope(IsGpuFigure(kind), settings);
  return *table;
}

std::optional<FigureTransfer> TransferSource::Transfer(FigureKind kind, std::int64_t workload_id,
                                                       const HardwareKey& hardware,
                                                       const RecommenderSettings& settings) {
  std::optional<std::string> target = TransferKey(kind, hardware);
  if (!target) return std::nullopt;
  const TransferTable& table = Table(kind, settings);
  auto key = std::make_tuple(kind, workload_id, std::move(*target));
  if (const auto it = answers_.find(key); it != answers_.end()) return it->second;
  const std::optional<TransferEstimate> estimate =
      table.Estimate(workload_id, std::get<std::string>(key));
  std::optional<FigureTransfer> answer;
  if (estimate) answer = FigureTransferOf(kind, *estimate);
  if (answers_.size() >= kMaxAnswers) answers_.clear();
  answers_.emplace(std::move(key), answer);
  return answer;
}

std::optional<std::string> TransferKey(FigureKind kind, std::string_view gpu_brand,
                                       std::string_view gpu_model, std::string_view instance_type) {
  if (IsGpuFigure(kind)) {
    if (gpu_model.empty()) return std::nullopt;
    return CardKey(gpu_brand, gpu_model);
  }
  if (instance_type.empty()) return std::nullopt;
  return std::string(instance_type);
}

std::optional<std::string> TransferKey(FigureKind kind, const HardwareKey& hardware) {
  return TransferKey(kind, hardware.gpu_brand.value_or(""), hardware.gpu_model.value_or(""),
                     hardware.instance_type.value_or(""));
}

bool WantsTransfer(const Figure& figure, const HardwareKey& hardware,
                   const RecommenderSettings& settings) {
  if (!settings.figure(figure.kind).transfer) return false;
  if (figure.value && figure.provenance != Provenance::kWorkloadAnyHardware) return false;
  return !(hardware.cpu_only && IsGpuFigure(figure.kind));
}

std::optional<FigureTransfer> FigureTransferOf(FigureKind kind, const TransferEstimate& estimate) {
  if (kind == FigureKind::kGpuComputeFraction && estimate.value > 1) return std::nullopt;
  const bool gpu = IsGpuFigure(kind);
  FigureTransfer out;
  out.source = KeyOfTable(gpu, estimate.source_key);
  out.source_value = estimate.source_value;
  out.factor = estimate.factor.factor;
  out.workloads = estimate.factor.workloads;
  out.neighbours = estimate.factor.neighbours;
  out.sources = static_cast<std::int64_t>(estimate.sources);
  out.spread = estimate.spread;
  out.estimate = estimate.value;
  return out;
}

}  // namespace hwrec::internal
