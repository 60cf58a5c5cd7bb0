// PlacementEvaluator: the registered pools and the catalog, kept in step with
// the store, and the evaluation of one execution on its candidates: the pools
// looked up, the recommendations and the workload's history read as one state
// of the store, each candidate judged (candidate.cpp), then ranked
// (evaluator_rank.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"
#include "placement/candidate.h"
#include "placement/evaluator_impl.h"
#include "placement/history.h"
#include "recommend/kept_reader.h"
#include "store/change_watch.h"
#include "store/combined_read.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::PoolFacts;

// Partitions one node of the pool holds: gpu_total, or its cards when whole.
std::optional<std::int64_t> PartitionsPerNode(const HardwareProfile& h) {
  if (h.gpu_total.value_or(0) > 0) return h.gpu_total;
  if (h.gpu_mode == std::optional<std::string>("full") && h.gpu_count.value_or(0) > 0) {
    return h.gpu_count;
  }
  return std::nullopt;
}

}  // namespace

void PoolIndex::Add(NodePool pool, const GpuCatalog& catalog) {
  PoolFacts facts;
  const HardwareKey key = HardwareKey::Of(pool);
  const auto known = std::find(keys.begin(), keys.end(), key);
  facts.key_index = static_cast<std::size_t>(known - keys.begin());
  if (known == keys.end()) keys.push_back(key);
  const HardwareProfile& h = pool.hardware;
  if (h.gpu_count.value_or(0) > 0 && h.gpu_brand && h.gpu_model) {
    facts.card = catalog.FindModel(*h.gpu_brand, *h.gpu_model);
    if (h.gpu_mode)
      facts.partition = catalog.FindPartition(*h.gpu_brand, *h.gpu_model, *h.gpu_mode);
    if (facts.partition != nullptr)
      facts.partition_words = internal::PartitionWords(*facts.partition);
  }
  facts.partitions_per_node = PartitionsPerNode(h);
  facts.pool = std::move(pool);
  pool_by_id[facts.pool.node_pool_id] = pools.size();
  pools.push_back(std::move(facts));
}

Status PlacementEvaluator::Impl::Sync() {
  const bool catalog_changed = watch.pending()(store::ChangeArea::kCatalog);
  if (!catalog_changed && !watch.pending()(store::ChangeArea::kPools)) return Status::Ok();
  // Read aside, then swapped in: a failure leaves the evaluator as it was.
  // (Moving a catalog keeps its models where they are.)
  std::optional<GpuCatalog> loaded;
  if (catalog_changed) {
    auto read = GpuCatalog::Load(store);
    if (!read.ok()) return read.status();
    loaded = std::move(*read);
  }
  auto listed = ListNodePools(store);
  if (!listed.ok()) return listed.status();
  PoolIndex fresh;
  fresh.pools.reserve(listed->size());
  for (NodePool& pool : *listed) fresh.Add(std::move(pool), loaded ? *loaded : catalog);
  if (loaded) catalog = std::move(*loaded);
  index = std::move(fresh);
  last_found.clear();
  watch.Applied(store::ChangeArea::kCatalog);
  watch.Applied(store::ChangeArea::kPools);
  return Status::Ok();
}

std::vector<const HardwareKey*> PlacementEvaluator::Impl::KeysOf(
    const std::vector<const PoolFacts*>& pools) const {
  std::vector<bool> used(index.keys.size(), false);
  std::vector<const HardwareKey*> keys;
  for (const PoolFacts* pool : pools) {
    if (pool == nullptr || used[pool->key_index]) continue;
    used[pool->key_index] = true;
    keys.push_back(&index.keys[pool->key_index]);
  }
  return keys;
}

std::optional<PlacementEvaluator::Impl::Held> PlacementEvaluator::Impl::ReadCombined(
    const std::string& workload, const std::vector<const PoolFacts*>& pools, bool with_history) {
  using Rows = internal::CombinedAggregates::Rows;
  using History = internal::WorkloadHistoryReader;
  std::unique_ptr<store::Statement>& statement = combined[with_history ? 1 : 0];
  if (!statement) {
    std::vector<std::string_view> arms = internal::CombinedAggregates::Arms(Rows::kEveryRow);
    if (with_history) arms.push_back(History::CombinedArm());
    arms.push_back(store::ChangeWatch::kCountersArm);
    statement = store::ConnectionOf(store).Prepare(store::combined::Statement(arms));
  }
  statement->Reset();
  const int next =
      internal::CombinedAggregates::Bind(*statement, 1, Rows::kEveryRow, workload, nullptr);
  if (with_history) History::BindCombined(*statement, next, workload);
  internal::CombinedAggregates read(KeysOf(pools));
  Held held;
  std::vector<History::Recent> recent;
  const auto take_history = [&](const store::Statement& row) {
    History::TakeCombined(row, &recent);
  };
  constexpr store::StoreChanges kEveryArea{{true, true, true}};  // pools, catalog, settings
  if (!internal::RunCombined(
          *statement, watch, kEveryArea, &read,
          with_history ? take_history : std::function<void(const store::Statement&)>())) {
    return std::nullopt;
  }
  reader->KeepWhile(watch.version());  // a new call: drops what the reader may not keep
  held.history = History::FinishCombined(&recent);
  held.workload_id = read.workload_id();
  held.memo = read.TakeMemo();
  return held;
}

// One read per distinct hardware key among `pools`, many candidates share one;
// all of them and the workload's history in the caller's read transaction
// (or `held`'s one statement), the workload looked up once.
Result<std::vector<const Recommendation*>> PlacementEvaluator::Impl::RecommendationsFor(
    const std::string& workload, const std::vector<const PoolFacts*>& candidates, double as_of,
    internal::ExecutionFacts* facts, std::vector<std::optional<Recommendation>>* cache,
    Held* held) {
  auto kept = internal::KeptReader(store, &reader, watch);
  if (!kept.ok()) return kept.status();
  internal::RecommendationReader& read = **kept;
  facts->default_cpu_millicores = read.settings().default_cpu_request_millicores;
  facts->default_memory_bytes = read.settings().default_memory_bytes;
  const std::int64_t workload_id =
      held != nullptr ? held->workload_id : read.WorkloadId(workload).value_or(0);
  internal::WorkloadHistory history;
  if (internal::ShapeNeedsHistory(*facts) && workload_id != 0) {
    if (held != nullptr) {
      history = std::move(held->history);
    } else {
      if (!history_reader) {
        history_reader =
            std::make_unique<internal::WorkloadHistoryReader>(store::ConnectionOf(store));
      }
      history = history_reader->Read(workload_id, watch.version());
    }
  }
  internal::CompleteShape(history, facts);
  const std::vector<HardwareKey>& keys = index.keys;
  internal::AggregateMemo own_memo;  // when the reader keeps none across calls
  internal::AggregateMemo* kept_memo = read.KeptMemo(workload_id);
  internal::AggregateMemo& memo = held != nullptr        ? held->memo
                                  : kept_memo != nullptr ? *kept_memo
                                                         : own_memo;
  if (held == nullptr) read.ReadAggregates(workload_id, KeysOf(candidates), &memo);
  cache->assign(keys.size(), std::nullopt);
  // GPU memory per GPU of the executions that held as many GPUs as this one gets.
  std::optional<std::int64_t> width;
  if (facts->shape.gpu_count > 0) width = facts->shape.gpu_count;
  std::vector<const Recommendation*> out(candidates.size(), nullptr);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i] == nullptr) continue;
    std::optional<Recommendation>& slot = (*cache)[candidates[i]->key_index];
    if (!slot)
      slot = read.Read(workload_id, workload, keys[candidates[i]->key_index], as_of, &memo, width);
    out[i] = &*slot;
  }
  return out;
}
PlacementEvaluator::PlacementEvaluator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PlacementEvaluator::~PlacementEvaluator() = default;

Result<std::unique_ptr<PlacementEvaluator>> PlacementEvaluator::Open(const Store& store) {
  auto impl = std::make_unique<Impl>(store);
  Status synced = internal::Guarded(store.path(), [&]() -> Status {
    store::ReadSnapshot snapshot(store::ConnectionOf(store));
    impl->watch.Poll();
    return impl->Sync();
  });
  if (!synced.ok()) return synced;
  return std::unique_ptr<PlacementEvaluator>(new PlacementEvaluator(std::move(impl)));
}

Status PlacementEvaluator::SetDemandMix(std::vector<DemandShape> mix) {
  double largest = 0;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    const DemandShape& shape = mix[i];
    const std::string where = fmt::format("demand mix shape {}", i + 1);
    if (shape.gpu_count < 0 || shape.cpu_millicores < 0) {
      return Status::InvalidArgument(
          fmt::format("{}: gpu_count and cpu_millicores must be 0 or more", where));
    }
    if (!(shape.gpu_share > 0 && shape.gpu_share <= 1)) {
      return Status::InvalidArgument(fmt::format(
          "{}: gpu_share is {}: it is a share of one card, in (0, 1]", where, shape.gpu_share));
    }
    if (shape.gpu_share < 1 && shape.gpu_count > 1) {
      return Status::InvalidArgument(fmt::format(
          "{}: a share below a whole card goes on one card: give gpu_count 1 or gpu_share 1",
          where));
    }
    if (!(shape.weight > 0 && std::isfinite(shape.weight))) {
      return Status::InvalidArgument(
          fmt::format("{}: weight is {}: give a finite weight above 0", where, shape.weight));
    }
    largest = std::max(largest, shape.weight);
  }
  // Scaled to the largest first: finite weights never add up to infinity.
  double total = 0;
  for (DemandShape& shape : mix) {
    shape.weight /= largest;
    total += shape.weight;
  }
  for (DemandShape& shape : mix) shape.weight /= total;
  impl_->mix = std::move(mix);
  return Status::Ok();
}

Status PlacementEvaluator::Impl::LookUp(const std::vector<PlacementCandidate>& candidates,
                                        std::vector<const PoolFacts*>* found) {
  const std::vector<PoolFacts>& pools = index.pools;
  const std::unordered_map<std::string, std::size_t>& pool_by_id = index.pool_by_id;
  std::vector<char> listed(pools.size(), 0);
  last_found.resize(candidates.size(), pools.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const PlacementCandidate& c = candidates[i];
    if (Status fields = internal::CheckCandidateFields(i, c); !fields.ok()) return fields;
    std::size_t position = last_found[i];
    if (position >= pools.size() || pools[position].pool.node_pool_id != c.node_pool_id) {
      const auto at = pool_by_id.find(c.node_pool_id);
      position = at != pool_by_id.end() ? at->second : pools.size();
      last_found[i] = position;
    }
    if (position < pools.size()) {
      if (listed[position]++ != 0) return internal::CandidateListedTwice(i, c.node_pool_id);
      (*found)[i] = &pools[position];
      continue;
    }
    // Not registered (rare): compared with the earlier candidates.
    for (std::size_t j = 0; j < i; ++j) {
      if (candidates[j].node_pool_id == c.node_pool_id) {
        return internal::CandidateListedTwice(i, c.node_pool_id);
      }
    }
  }
  return Status::Ok();
}

Result<PlacementResult> PlacementEvaluator::Evaluate(
    const ExecutionToPlace& execution, const std::vector<PlacementCandidate>& candidates,
    PlacementPolicy policy, std::optional<double> as_of) {
  if (execution.workload.empty()) {
    return Status::InvalidArgument("workload is empty: give the execution's action image");
  }
  if (candidates.empty()) {
    return Status::InvalidArgument("candidates: the list is empty: give at least one node pool");
  }
  if (Status time = internal::CheckEpochSeconds(as_of, "as_of"); !time.ok()) return time;
  auto facts = internal::ResolveExecution(execution);
  if (!facts.ok()) return facts.status();
  Impl& impl = *impl_;
  return internal::Guarded(impl.store.path(), [&]() -> Result<PlacementResult> {
    store::Connection& db = store::ConnectionOf(impl.store);
    std::vector<const PoolFacts*> pools(candidates.size(), nullptr);
    // The pools, the settings and the history as one state of the store: in
    // the steady state, from what the evaluator holds and one statement
    // (where each is a round trip), else read in a snapshot.
    std::optional<Impl::Held> held;
    if (internal::MayReadCombined(db, impl.watch, impl.reader != nullptr, {{true, true, true}}) &&
        impl.LookUp(candidates, &pools).ok()) {
      held = impl.ReadCombined(execution.workload, pools, internal::ShapeNeedsHistory(*facts));
    }
    std::optional<store::ReadSnapshot> snapshot;
    if (!held) {
      snapshot.emplace(db);
      impl.watch.Poll();
      if (Status synced = impl.Sync(); !synced.ok()) return synced;
      std::fill(pools.begin(), pools.end(), nullptr);
      if (Status looked_up = impl.LookUp(candidates, &pools); !looked_up.ok()) return looked_up;
    }
    PlacementResult result;
    result.workload = execution.workload;
    result.policy = policy;
    result.as_of = as_of.value_or(internal::NowEpochSeconds());
    std::vector<std::optional<Recommendation>> cache;
    auto recommendations = impl.RecommendationsFor(execution.workload, pools, result.as_of, &*facts,
                                                   &cache, held ? &*held : nullptr);
    if (!recommendations.ok()) return recommendations.status();
    result.shape = facts->shape;
    result.evaluations.reserve(candidates.size());
    const std::vector<DemandShape>* mix =
        policy == PlacementPolicy::kFragmentation ? &impl.mix : nullptr;
    // The figures a request starts from, once per hardware key (and once for
    // every pool not registered): candidates of one key share them.
    std::vector<std::optional<internal::ChosenFigures>> chosen(cache.size());
    std::optional<internal::ChosenFigures> unregistered;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      std::optional<internal::ChosenFigures>& figures =
          pools[i] != nullptr ? chosen[pools[i]->key_index] : unregistered;
      if (!figures) figures = internal::ChooseFigures(*facts, (*recommendations)[i]);
      result.evaluations.push_back(
          internal::EvaluateCandidate(*facts, candidates[i], i, pools[i], *figures, mix));
    }
    impl.Rank(&result, policy, facts->shape.gpu_count, pools);
    return result;
  });
}

}  // namespace hwrec
