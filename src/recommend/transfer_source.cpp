// TransferSource (transfer_source.h): the TransferTables read from the
// aggregates, and the FigureTransfer of one figure on one key.
#include "recommend/transfer_source.h"

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
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    if (tables[f]) tables_[f] = std::move(tables[f]);
  }
}

std::optional<FigureTransfer> TransferSource::Transfer(FigureKind kind, std::int64_t workload_id,
                                                       const HardwareKey& hardware,
                                                       const RecommenderSettings& settings) {
  const bool gpu = IsGpuFigure(kind);
  std::string target;
  if (gpu) {
    if (!hardware.gpu_model || hardware.gpu_model->empty()) return std::nullopt;
    target = CardKey(hardware.gpu_brand.value_or(""), *hardware.gpu_model);
  } else {
    if (!hardware.instance_type || hardware.instance_type->empty()) return std::nullopt;
    target = *hardware.instance_type;
  }
  auto& table = tables_[static_cast<std::size_t>(kind)];
  if (!table) ReadScope(gpu, settings);
  const std::optional<TransferEstimate> estimate = table->Estimate(workload_id, target);
  if (!estimate) return std::nullopt;
  FigureTransfer out;
  out.source = KeyOfTable(gpu, estimate->source_key);
  out.source_value = estimate->source_value;
  out.factor = estimate->factor.factor;
  out.workloads = estimate->factor.workloads;
  out.neighbours = estimate->factor.neighbours;
  out.sources = static_cast<std::int64_t>(estimate->sources);
  out.spread = estimate->spread;
  out.estimate = estimate->value;
  return out;
}

}  // namespace hwrec::internal
