// RecommendationReader at a width (recommendation_reader.h): the GPU memory
// figure learned from the executions that held that many GPUs, or the
// nearest width they ran at, with its reason when asked.
#include "recommend/recommendation_reader.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recommend/estimator.h"
#include "recommend/figure_reason.h"
#include "recommend/recommendation_reader_internal.h"

namespace hwrec::internal {

namespace {

// The width whose rows answer for `width`: `width` itself, else the nearest
// one with rows, the narrower on a tie (its per-GPU figure is at least the
// need at more GPUs: a request sized by it does not run out); 0 when there
// are none.
std::int64_t NearestWidth(const std::vector<std::int64_t>& widths, std::int64_t width) {
  std::int64_t best = 0;
  for (std::int64_t w : widths) {
    const std::int64_t d = w > width ? w - width : width - w;
    const std::int64_t best_d = best > width ? best - width : width - best;
    if (best == 0 || d < best_d || (d == best_d && w < best)) best = w;
  }
  return best;
}

}  // namespace

RecommendationReader::WidthAggregates RecommendationReader::WidthAggregatesIn(
    const AggregateMemo& memo, std::int64_t workload_id, const HardwareKey& hardware) {
  WidthAggregates by_width;
  for (const auto& [key, aggregate] : memo) {
    if (key.workload_id == workload_id && aggregate) by_width.Add(key, *aggregate, hardware);
  }
  return by_width;
}

void RecommendationReader::AnswerForWidth(std::int64_t workload_id, std::int64_t width,
                                          bool explain, Recommendation* out) {
  out->width = width;
  if (workload_id <= 0 || out->hardware.cpu_only) return;
  AggregateMemo memo;  // the workload's rows of every width, in ReadAggregates' one pass
  ReadAggregates(workload_id, {&out->hardware}, &memo);
  AnswerForWidth(workload_id, width, explain, WidthAggregatesIn(memo, workload_id, out->hardware),
                 out);
}

std::map<std::int64_t, Figure> RecommendationReader::GpuMemoryByWidth(
    std::int64_t workload_id, const Recommendation& every_width, AggregateMemo* memo) {
  constexpr FigureKind kKind = FigureKind::kGpuMemoryGb;
  const HardwareKey& hardware = every_width.hardware;
  std::map<std::int64_t, Figure> figures;
  if (hardware.cpu_only || workload_id <= 0) return figures;
  ReadAggregates(workload_id, {&hardware}, memo);  // nothing to read when prefetched
  const WidthAggregates by_width = WidthAggregatesIn(*memo, workload_id, hardware);
  const Figure& pooled = every_width.figure(kKind);
  if (pooled.provenance == Provenance::kTransferred && pooled.transfer) {
    const auto source =
        by_width.on_other_cards.find({pooled.transfer->source.gpu_brand.value_or(""),
                                      pooled.transfer->source.gpu_model.value_or("")});
    if (source == by_width.on_other_cards.end()) return figures;
    for (const auto& [width, aggregate] : source->second) {
      if (aggregate->metric(kKind).empty()) continue;
      Recommendation at = every_width;
      TransferAtWidth(width, /*explain=*/false, by_width, &at);
      if (at.figure(kKind).learned_width == width) figures.emplace(width, at.figure(kKind));
    }
    return figures;
  }
  for (std::int64_t width : by_width.Widths()) {
    const WidthAggregates::At at = by_width.MostSpecificAt(width);
    Figure figure = EstimateFigure(kKind, at.aggregate->metric(kKind), settings_,
                                   kProvenanceOfScope[static_cast<std::size_t>(at.scope)]);
    figure.learned_width = width;
    figures.emplace(width, std::move(figure));
  }
  return figures;
}

void RecommendationReader::WidthAggregates::Add(const AggregateKey& key,
                                                const KeyAggregate& aggregate,
                                                const HardwareKey& hardware) {
  if (key.width <= 0) return;
  if (key.scope == Scope::kAny) {
    on_any.emplace(key.width, &aggregate);
    return;
  }
  if (key.gpu_brand != hardware.gpu_brand.value_or("") ||
      key.gpu_model != hardware.gpu_model.value_or("")) {
    if (key.scope == Scope::kGpuModel) {
      on_other_cards[{key.gpu_brand, key.gpu_model}].emplace(key.width, &aggregate);
    }
    return;
  }
  if (key.scope == Scope::kGpuModel) {
    on_card.emplace(key.width, &aggregate);
  } else if (key.scope == Scope::kExact &&
             key.instance_type == hardware.instance_type.value_or("")) {
    on_key.emplace(key.width, &aggregate);
  }
}

std::vector<std::int64_t> RecommendationReader::WidthAggregates::Widths() const {
  std::vector<std::int64_t> widths;
  for (const auto& [w, aggregate] : on_any) {
    if (!aggregate->metric(FigureKind::kGpuMemoryGb).empty()) widths.push_back(w);
  }
  return widths;
}

// The most specific population at `width` (one of Widths()): the key, the
// card, any card.
RecommendationReader::WidthAggregates::At RecommendationReader::WidthAggregates::MostSpecificAt(
    std::int64_t width) const {
  for (const auto& [scope, rows] :
       {std::pair{Scope::kExact, &on_key}, std::pair{Scope::kGpuModel, &on_card}}) {
    const auto found = rows->find(width);
    if (found != rows->end() && !found->second->metric(FigureKind::kGpuMemoryGb).empty()) {
      return {found->second, scope};
    }
  }
  return {on_any.at(width), Scope::kAny};
}

void RecommendationReader::AnswerForWidth(std::int64_t workload_id, std::int64_t width,
                                          bool explain, const WidthAggregates& by_width,
                                          Recommendation* out) {
  out->width = width;
  if (workload_id <= 0 || out->hardware.cpu_only) return;
  constexpr FigureKind kKind = FigureKind::kGpuMemoryGb;
  const std::int64_t learned = NearestWidth(by_width.Widths(), width);
  if (learned == 0) return;  // no execution said what it held: every width's figure stands
  const WidthAggregates::At at = by_width.MostSpecificAt(learned);
  const KeyAggregate* aggregate = at.aggregate;
  const Scope scope = at.scope;
  const Provenance provenance = kProvenanceOfScope[static_cast<std::size_t>(scope)];
  Figure& figure = out->figures[static_cast<std::size_t>(kKind)];
  // Transfer comes before any card's history, at a width as without one.
  if (scope == Scope::kAny && figure.provenance == Provenance::kTransferred) {
    TransferAtWidth(width, explain, by_width, out);
    return;
  }
  figure = EstimateFigure(kKind, aggregate->metric(kKind), settings_, provenance);
  figure.learned_width = learned;
  if (!explain || !figure.value) return;
  std::optional<RecentValue> set_by;
  figure.reason = ExplainFigure(kKind, aggregate->metric(kKind), settings_, &set_by);
  if (!figure.reason) return;
  std::optional<ExplainedExecution> execution;
  if (set_by) execution = FindExecution(kKind, workload_id, out->hardware, scope, *set_by);
  CompleteReason(kKind, settings_, set_by, execution, &*figure.reason);
  const std::string where = scope == Scope::kExact      ? "on this hardware"
                            : scope == Scope::kGpuModel ? "on this card"
                                                        : "on any card";
  figure.reason->text.insert(
      0, learned == width
             ? fmt::format("per GPU, of the executions that held {} GPU(s) {}: ", width, where)
             : fmt::format("per GPU, of the executions that held {} GPU(s) {}, the nearest width "
                           "it ran at (none held {}; not scaled to it): ",
                           learned, where, width));
}

void RecommendationReader::TransferAtWidth(std::int64_t width, bool explain,
                                           const WidthAggregates& by_width,
                                           Recommendation* out) const {
  constexpr FigureKind kKind = FigureKind::kGpuMemoryGb;
  Figure& figure = out->figures[static_cast<std::size_t>(kKind)];
  const FigureTransfer& all = *figure.transfer;
  const auto source = by_width.on_other_cards.find(
      {all.source.gpu_brand.value_or(""), all.source.gpu_model.value_or("")});
  if (source == by_width.on_other_cards.end() || !(all.source_value > 0)) return;
  std::vector<std::int64_t> widths;
  for (const auto& [w, aggregate] : source->second) {
    if (!aggregate->metric(kKind).empty()) widths.push_back(w);
  }
  const std::int64_t learned = NearestWidth(widths, width);
  if (learned == 0) return;
  const std::optional<double> value =
      FigureStatistic(kKind, source->second.at(learned)->metric(kKind), settings_);
  if (!value || !(*value > 0)) return;
  FigureTransfer at = all;  // the same factor (of every source, combined) at this width
  at.estimate = all.estimate * (*value / all.source_value);
  at.source_value = *value;
  figure = TransferredFigure(kKind, at, settings_, explain);
  figure.learned_width = learned;
  if (!figure.reason) return;
  DescribeTransfer(kKind, out->hardware, at, &*figure.reason);
  figure.reason->text.insert(
      0, learned == width
             ? fmt::format("per GPU, of the executions that held {} GPU(s) on {}: ", width,
                           KeyText(at.source))
             : fmt::format("per GPU, of the executions that held {} GPU(s) on {}, the nearest "
                           "width it ran at there (none held {}; not scaled to it): ",
                           learned, KeyText(at.source), width));
}

}  // namespace hwrec::internal
