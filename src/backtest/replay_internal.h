// The replay of one workload's executions, as Backtest (backtest.cpp) drives
// it once per run: each execution as the replay needs it, the sums of a
// series, and the replay itself (replay.cpp). Private to src/backtest/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "hwrec/backtest.h"
#include "hwrec/figure.h"
#include "hwrec/hardware_key.h"
#include "recommend/transfer_source.h"

namespace hwrec::internal {

// One observation as the replay needs it.
struct Execution {
  AggregateInput input;
  std::string execution_id;
  std::optional<double> duration_s;
  double started_at = 0;
  bool scored = false;  // matches the key filter (the figure filter applies per figure)
  HardwareKey hardware;
  std::size_t key_index = 0;  // into the workload's distinct hardware keys
};

// Sums behind a BacktestTotals.
struct Tally {
  // The executions scored or cold, and how they fared.
  struct Outcomes {
    std::int64_t scored = 0, cold = 0, overruns = 0, fits = 0;
    double slack = 0;

    void Add(const Outcomes& o) {
      scored += o.scored;
      cold += o.cold;
      overruns += o.overruns;
      fits += o.fits;
      slack += o.slack;
    }
    // One execution that used `observed` against `recommended` (none: cold).
    void Count(const std::optional<double>& recommended, double observed, bool overrun) {
      if (!recommended) {
        ++cold;
        return;
      }
      ++scored;
      if (overrun) {
        ++overruns;
        return;
      }
      ++fits;
      if (*recommended > 0) slack += (*recommended - observed) / *recommended;
    }
    double MeanSlack() const { return fits > 0 ? slack / static_cast<double>(fits) : 0; }
  };
  Outcomes all;
  Outcomes new_card;  // sized with history on other hardware only
  std::int64_t with_duration = 0, transferred = 0;
  double over_provisioned = 0;

  void Add(const Tally& o) {
    all.Add(o.all);
    new_card.Add(o.new_card);
    with_duration += o.with_duration;
    transferred += o.transferred;
    over_provisioned += o.over_provisioned;
  }
  BacktestTotals Totals() const {
    BacktestTotals t;
    t.scored = all.scored;
    t.cold = all.cold;
    t.overruns = all.overruns;
    t.overrun_share =
        all.scored > 0 ? static_cast<double>(all.overruns) / static_cast<double>(all.scored) : 0;
    t.mean_slack = all.MeanSlack();
    t.over_provisioned = over_provisioned;
    t.with_duration = with_duration;
    t.new_card = new_card.scored + new_card.cold;
    t.new_card_scored = new_card.scored;
    t.new_card_overruns = new_card.overruns;
    t.new_card_mean_slack = new_card.MeanSlack();
    t.transferred = transferred;
    return t;
  }
};

struct SeriesTally {
  static bool Marked(const BacktestPoint& p) { return p.overrun || p.oom || p.transferred; }

  Tally tally;
  std::vector<BacktestPoint> points;
  // Points that neither overran nor were OOMs: how many were seen, how many
  // are kept, and the stride of those kept (every stride-th one seen).
  std::size_t plain_seen = 0;
  std::size_t plain_kept = 0;
  std::size_t stride = 1;

  // Keeps every overrun, OOM and transferred figure and every stride-th
  // other point; past 2 × `limit` others kept, drops every second of them
  // and doubles the stride, so that at most 2 × `limit` stay, evenly spread
  // over the series.
  void Keep(BacktestPoint point, std::size_t limit) {
    if (Marked(point)) {
      points.push_back(std::move(point));
      return;
    }
    if (plain_seen++ % stride != 0) return;
    points.push_back(std::move(point));
    if (limit == 0 || ++plain_kept <= 2 * limit) return;
    std::size_t plain = 0;
    const auto dropped = std::remove_if(points.begin(), points.end(), [&](const BacktestPoint& p) {
      return !Marked(p) && plain++ % 2 == 1;
    });
    points.erase(dropped, points.end());
    plain_kept = (plain_kept + 1) / 2;
    stride *= 2;
  }
};

// Per run: series tallies of one workload by (key index, figure).
using WorkloadTallies = std::map<std::pair<std::size_t, FigureKind>, SeriesTally>;

// A start or a finish of one execution in the replay's order.
struct Event {
  double time;
  int order;  // 0: a finish, 1: a start, 2: the finish of an execution without duration
  std::size_t index;
};

// The order the executions (oldest finish first) are replayed in: each is
// sized at its start from what had finished by then, so finish events sort
// before start events at the same time, except an execution's own finish
// when it has no duration (start = finish), which comes after its start.
// The same for every run: made once per workload.
std::vector<Event> ReplayOrder(const std::vector<Execution>& executions);

// Replays one workload's executions in `events` order with `settings`.
// `transfer` gives the factors of the figures whose setting allows transfer
// (recommend/transfer_source.h), learned from the other workloads.
void ReplayWorkload(const std::vector<Execution>& executions, const std::vector<Event>& events,
                    const RecommenderSettings& settings, const std::vector<FigureKind>& figures,
                    bool keep_points, std::size_t points_per_series, TransferSource* transfer,
                    WorkloadTallies* tallies);

}  // namespace hwrec::internal
