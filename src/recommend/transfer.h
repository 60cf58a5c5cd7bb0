// Transfer of a figure between hardware keys: what a workload needs on a key
// it never ran on, learned from the workloads that ran on both that key and
// one it did run on. A compute share on a V100 is not the share on a K80 (the
// ratio runs from 0.66x to 11.6x by workload), so a figure is never copied
// across keys: it is multiplied by a factor learned from the history.
//
// The values are one figure's central value per (workload, key), before any
// margin (e.g. the median share used on that card); keys are opaque text (a
// card, an instance type). Every relation is a ratio, learned in log space:
//
//  - pair factor A -> B: the median of value_B / value_A over the workloads
//    seen on both, with its spread (1.4826 x the median absolute deviation
//    of the log ratios) and the number of workloads behind it;
//  - when the workload ran on more keys than the source, its ratios from the
//    source to those keys place it among the others: the factor is the mean
//    log ratio A -> B of its nearest workloads (Gaussian weights, the k-th
//    nearest at one bandwidth), the spread their weighted deviation. Two
//    workloads that slow down alike from A to C tend to slow down alike from
//    A to B; a median over every workload ignores that;
//  - each source key the workload ran on gives an estimate; they are combined
//    in log space, weighted by the inverse of their spread squared.
//
// Fewer than `min_workloads` workloads seen on a source and the target (and
// the signature keys) give no estimate from that source; no source, no
// estimate: the caller falls back to what it did without transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hwrec::internal {

struct TransferSettings {
  std::size_t min_workloads = 3;  // workloads seen on both keys for a factor
  std::size_t neighbours = 6;     // k of the nearest-workload factor
  double min_spread = 0.05;       // a floor on any spread (log units): 5 %
};

// A factor from one key to another, in the value's ratio (value_to / value_from).
struct TransferFactor {
  double factor = 1;
  double spread = 0;           // standard deviation of the log ratio
  std::int64_t workloads = 0;  // workloads seen on both keys
  // How many of them, the nearest, set the factor; 0: the median of all.
  std::int64_t neighbours = 0;
};

struct TransferEstimate {
  double value = 0;  // the estimate on the target key, before any margin
  // Combined over every source: the standard deviation of the estimate's log
  // (the spread of the sources' factors, weighted as they were).
  double spread = 0;
  // The best-evidenced source (the largest weight): its key, the workload's
  // value there and the factor applied to it.
  std::string source_key;
  double source_value = 0;
  TransferFactor factor;
  std::size_t sources = 0;  // source keys that gave an estimate
};

// The central values of one figure, by workload then key; every value > 0
// (others are ignored when added).
class TransferTable {
 public:
  explicit TransferTable(TransferSettings settings = {});

  void Add(std::int64_t workload, const std::string& key, double value);

  // The pair factor from `from` to `to` over every workload seen on both but
  // `except` (a workload held out); nullopt under min_workloads.
  std::optional<TransferFactor> PairFactor(const std::string& from, const std::string& to,
                                           std::optional<std::int64_t> except = {}) const;

  // The estimate for `workload` on `target` from its values on other keys
  // (its own value on `target`, if any, is not used). Nullopt when no source
  // has enough evidence.
  std::optional<TransferEstimate> Estimate(std::int64_t workload, const std::string& target) const;
  // The same from `own`, the workload's values by key as the caller knows
  // them (e.g. as of a moment of its history); every factor is learned from
  // the other workloads only.
  std::optional<TransferEstimate> Estimate(std::int64_t workload,
                                           const std::map<std::string, double>& own,
                                           const std::string& target) const;

  const std::map<std::string, double>* ValuesOf(std::int64_t workload) const;

 private:
  // The median of `log_ratios` and its robust spread; nullopt under min_workloads.
  std::optional<TransferFactor> FactorOfRatios(const std::vector<double>& log_ratios) const;
  std::optional<TransferFactor> SourceFactor(std::int64_t workload,
                                             const std::map<std::string, double>& own,
                                             const std::string& source,
                                             const std::string& target) const;

  TransferSettings settings_;
  std::map<std::int64_t, std::map<std::string, double>> values_;
};

}  // namespace hwrec::internal
