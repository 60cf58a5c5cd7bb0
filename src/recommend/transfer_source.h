// Transferred figures from the store: the TransferTables (transfer.h) of
// every workload's figures on each card (GPU figures, from the aggregates of
// scope gpu_model) and each instance type (CPU and memory, scope
// instance_type), read at read time and never materialised. Ingest writes
// nothing more for them: what transfer costs is paid by the reads that need
// it (a figure with no history on its key whose setting allows transfer):
// one scan of that scope's width-0 aggregates, and one estimate per
// (figure, workload, key), both kept. A reader kept across calls keeps them
// while the store's data version holds and, once it has changed, until they
// are transfer.refresh_seconds old (KeepFor): factors learned over many
// workloads move slowly, and a scan on every call of a busy store would cost
// more than the figures gain. One thread at a time.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "aggregate/settings.h"
#include "hwrec/figure.h"
#include "recommend/transfer.h"
#include "store/database.h"

namespace hwrec::internal {

// A table's key for a card (GPU figures: `gpu_brand` and `gpu_model`) or an
// instance type (CPU, memory); nullopt when the model or the instance type is
// not recorded.
std::optional<std::string> TransferKey(FigureKind kind, std::string_view gpu_brand,
                                       std::string_view gpu_model, std::string_view instance_type);
std::optional<std::string> TransferKey(FigureKind kind, const HardwareKey& hardware);

// Whether transfer replaces `figure` of `hardware`: its setting allows it,
// and it has no value or only the workload's history on any hardware.
bool WantsTransfer(const Figure& figure, const HardwareKey& hardware,
                   const RecommenderSettings& settings);

// What a figure says of `estimate`; nullopt for a compute share over one
// card (more than one card of that kind: no share of one covers it).
std::optional<FigureTransfer> FigureTransferOf(FigureKind kind, const TransferEstimate& estimate);

class TransferSource {
 public:
  explicit TransferSource(store::Connection& db);

  // The transfer of `kind` to `hardware`'s card (GPU figures) or instance
  // type (CPU, memory) for `workload_id`, from its history on other keys;
  // nullopt when the key is not known (no card model, no instance type) or
  // no factor has settings.transfer_min_workloads workloads behind it.
  std::optional<FigureTransfer> Transfer(FigureKind kind, std::int64_t workload_id,
                                         const HardwareKey& hardware,
                                         const RecommenderSettings& settings);

  // The table of `kind` (GPU figures by card, others by instance type),
  // read on first use with `settings`' statistics.
  const TransferTable& Table(FigureKind kind, const RecommenderSettings& settings);

  // Drops what was read: the next Transfer reads the aggregates again.
  void Drop();
  // A new call: `changed` when the store may have changed since the last
  // call (its data version moved, or the engine has none). Once the store
  // has changed since the tables were read, drops them at the first call at
  // which they are `refresh_seconds` old (0: at once), whether or not it
  // changed again since: a kept table lags the store by at most that long.
  void KeepFor(bool changed, double refresh_seconds);

 private:
  // One table per figure kind, of the kind's scope; read together per scope.
  void ReadScope(bool gpu, const RecommenderSettings& settings);

  store::Connection& db_;
  std::array<std::unique_ptr<TransferTable>, kFigureCount> tables_;
  static constexpr std::size_t kMaxAnswers = 4096;  // then they are forgotten and asked again

  std::chrono::steady_clock::time_point read_at_;  // when the first table kept was read
  bool stale_ = false;  // the store has changed since the tables were read
  // Transfer's answers, by (figure, workload, key): one estimate weighs every
  // workload seen on its keys.
  std::map<std::tuple<FigureKind, std::int64_t, std::string>, std::optional<FigureTransfer>>
      answers_;
};

}  // namespace hwrec::internal
