#include <fmt/format.h>

#include <array>

#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/recommend.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "recommend/combined_aggregates.h"
#include "recommend/kept_reader.h"
#include "store/combined_read.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace internal {

Result<RecommendationReader*> KeptReader(const Store& store,
                                         std::unique_ptr<RecommendationReader>* reader,
                                         store::ChangeWatch& watch) {
  if (*reader != nullptr) {
    if (watch.pending()(store::ChangeArea::kSettings)) (*reader)->ReloadSettings();
    watch.Applied(store::ChangeArea::kSettings);
    (*reader)->KeepWhile(watch.version());
    return reader->get();
  }
  // As of now: another process may have migrated since the store was opened.
  const int version = store.schema_version();
  if (version < Store::LatestSchemaVersion()) {
    return Status::SchemaMismatch(fmt::format(
        "{}: store is at schema {} but recommendations need schema {}: run {}", store.path(),
        version, Store::LatestSchemaVersion(), RemedyText(Remedy::kMigrate, store.path())));
  }
  *reader = std::make_unique<RecommendationReader>(store::ConnectionOf(store));
  (*reader)->AllowTransfer(true);
  watch.Applied(store::ChangeArea::kSettings);  // read as the reader was made
  (*reader)->KeepWhile(watch.version());
  return reader->get();
}

}  // namespace internal

// Hidden, though its class is exported: only the library reaches it.
struct [[gnu::visibility("hidden")]] RecommendationQuery::Impl {
  explicit Impl(const Store& s) : store(s) {}
  const Store& store;
  std::unique_ptr<internal::RecommendationReader> reader;
  std::optional<GpuCatalog> catalog;  // read by ResolveKey, again when it changes
  store::ChangeWatch watch{store::ConnectionOf(store)};
  // The reads in one statement, by CombinedAggregates::Rows; made on first use.
  std::array<std::unique_ptr<store::Statement>, 2> combined;

  // `named` resolved with what the query holds (the catalog it read last,
  // added to `held`), or nullopt when that takes a read (or fails: the
  // catalog may be stale).
  std::optional<HardwareKey> ResolveHeld(HardwareKey named, store::StoreChanges * held) const;
  // The recommendation in one statement, where each is a round trip
  // (Connection::RoundTripPerStatement) and a call has read the settings and
  // the change counters before: the statement reads the counters beside the
  // workload's id and aggregates, and the answer stands when nothing held in
  // memory (settings, catalog) changed. nullopt: read it in a snapshot
  // instead (nothing held yet, something changed, a connection lost since
  // the last call). `held`: the areas the call relies on the query's memory
  // for (the settings; the catalog too when it resolved a key with it).
  // Throws on another engine failure (call inside Guarded).
  std::optional<Recommendation> ReadCombined(
      const std::string& workload, const HardwareKey& hardware, std::optional<double> as_of,
      std::optional<std::int64_t> width, const store::StoreChanges& held);
};

namespace {
// A key that names no model, or names one on a CPU-only key: answered
// without the catalog (ResolveHardwareKey reads nothing for it).
bool ResolvesWithoutCatalog(const HardwareKey& named) {
  return !named.gpu_model || *named.gpu_model == "unknown" || named.cpu_only;
}
}  // namespace

std::optional<HardwareKey> RecommendationQuery::Impl::ResolveHeld(HardwareKey named,
                                                                  store::StoreChanges* held) const {
  if (ResolvesWithoutCatalog(named)) {
    Result<HardwareKey> key = ResolveHardwareKey(store, std::move(named), "gpu_model");
    if (!key.ok()) return std::nullopt;
    return std::move(key).value();
  }
  if (!catalog) return std::nullopt;
  held->changed[static_cast<std::size_t>(store::ChangeArea::kCatalog)] = true;
  Result<HardwareKey> key = catalog->ResolveKey(std::move(named), "gpu_model");
  if (!key.ok()) return std::nullopt;
  return std::move(key).value();
}

std::optional<Recommendation> RecommendationQuery::Impl::ReadCombined(
    const std::string& workload, const HardwareKey& hardware, std::optional<double> as_of,
    std::optional<std::int64_t> width, const store::StoreChanges& held) {
  store::Connection& db = store::ConnectionOf(store);
  if (!internal::MayReadCombined(db, watch, reader != nullptr, held)) return std::nullopt;
  using Rows = internal::CombinedAggregates::Rows;
  const Rows rows = width ? Rows::kEveryRow : Rows::kScopesOfOneKey;
  std::unique_ptr<store::Statement>& statement = combined[static_cast<std::size_t>(rows)];
  if (!statement) {
    std::vector<std::string_view> arms = internal::CombinedAggregates::Arms(rows);
    arms.push_back(store::ChangeWatch::kCountersArm);
    statement = db.Prepare(store::combined::Statement(arms));
  }
  statement->Reset();
  internal::CombinedAggregates::Bind(*statement, 1, rows, workload, &hardware);
  internal::CombinedAggregates read({&hardware});
  if (!internal::RunCombined(*statement, watch, held, &read)) return std::nullopt;
  reader->KeepWhile(watch.version());  // a new call: drops what the reader may not keep
  internal::AggregateMemo memo = read.TakeMemo();
  return reader->Read(read.workload_id(), workload, hardware,
                      as_of.value_or(internal::NowEpochSeconds()), &memo, width);
}

RecommendationQuery::RecommendationQuery(const Store& store)
    : impl_(std::make_unique<Impl>(store)) {}
RecommendationQuery::~RecommendationQuery() = default;

Result<std::unique_ptr<RecommendationQuery>> RecommendationQuery::Open(const Store& store) {
  return std::unique_ptr<RecommendationQuery>(new RecommendationQuery(store));
}

namespace {

// The arguments every recommendation checks before reading the store.
Status CheckRequest(const std::string& workload, std::optional<double> as_of,
                    std::optional<std::int64_t> width) {
  if (Status time = internal::CheckEpochSeconds(as_of, "as_of"); !time.ok()) return time;
  if (workload.empty()) {
    return Status::InvalidArgument("image is empty: give the action image of the workload");
  }
  if (workload.find('\0') != std::string::npos) {  // a C string would end there: another image
    return Status::InvalidArgument(
        "image holds a NUL character: give the action image as ingest stores it");
  }
  if (width && *width < 1) {
    return Status::InvalidArgument(fmt::format(
        "width {} is not a number of GPUs held: ask for 1 or more, or leave it out for every "
        "width",
        *width));
  }
  return Status::Ok();
}

// What every recommendation relies on the query's memory for.
constexpr store::StoreChanges kSettingsHeld{{false, false, true}};
static_assert(static_cast<int>(store::ChangeArea::kSettings) == 2);

// Runs `read` in one read snapshot of `store`, after polling `watch`: what
// every call of the query reads the store in.
template <typename Read>
auto InSnapshot(const Store& store, store::ChangeWatch& watch, Read&& read) {
  return internal::Guarded(store.path(), [&]() -> decltype(read()) {
    store::ReadSnapshot snapshot(store::ConnectionOf(store));
    watch.Poll();
    return read();
  });
}

}  // namespace

// In a snapshot, after the watch was polled: the catalog read again only when
// it changed.
Result<HardwareKey> RecommendationQuery::ResolveInSnapshot(HardwareKey named,
                                                           std::string_view model_field) {
  if (ResolvesWithoutCatalog(named)) {
    return ResolveHardwareKey(impl_->store, std::move(named), model_field);
  }
  if (!impl_->catalog || impl_->watch.pending()(store::ChangeArea::kCatalog)) {
    Result<GpuCatalog> loaded = GpuCatalog::Load(impl_->store);
    if (!loaded.ok()) return loaded.status();
    impl_->catalog = std::move(loaded).value();
    impl_->watch.Applied(store::ChangeArea::kCatalog);
  }
  return impl_->catalog->ResolveKey(std::move(named), model_field);
}

// In a snapshot, after the watch was polled.
Result<Recommendation> RecommendationQuery::ReadInSnapshot(const std::string& workload,
                                                           const HardwareKey& hardware,
                                                           std::optional<double> as_of,
                                                           Explain explain,
                                                           std::optional<std::int64_t> width) {
  auto reader = internal::KeptReader(impl_->store, &impl_->reader, impl_->watch);
  if (!reader.ok()) return reader.status();
  const double at = as_of.value_or(internal::NowEpochSeconds());
  const auto id = (*reader)->WorkloadId(workload);
  return (*reader)->Read(id.value_or(0), workload, hardware, at, explain == Explain::kYes, width);
}

Result<Recommendation> RecommendationQuery::Recommend(const std::string& workload,
                                                      const HardwareKey& hardware,
                                                      std::optional<double> as_of, Explain explain,
                                                      std::optional<std::int64_t> width) {
  if (Status request = CheckRequest(workload, as_of, width); !request.ok()) return request;
  return internal::Guarded(impl_->store.path(), [&]() -> Result<Recommendation> {
    if (explain == Explain::kNo) {
      if (auto answered = impl_->ReadCombined(workload, hardware, as_of, width, kSettingsHeld)) {
        return *answered;
      }
    }
    store::ReadSnapshot snapshot(store::ConnectionOf(impl_->store));
    impl_->watch.Poll();
    return ReadInSnapshot(workload, hardware, as_of, explain, width);
  });
}

Result<HardwareKey> RecommendationQuery::ResolveKey(HardwareKey named,
                                                    std::string_view model_field) {
  return InSnapshot(impl_->store, impl_->watch,
                    [&] { return ResolveInSnapshot(std::move(named), model_field); });
}

Result<Recommendation> RecommendationQuery::RecommendNamed(const std::string& workload,
                                                           HardwareKey named,
                                                           std::optional<double> as_of,
                                                           Explain explain,
                                                           std::optional<std::int64_t> width) {
  if (Status request = CheckRequest(workload, as_of, width); !request.ok()) return request;
  return internal::Guarded(impl_->store.path(), [&]() -> Result<Recommendation> {
    if (explain == Explain::kNo && store::ConnectionOf(impl_->store).RoundTripPerStatement()) {
      store::StoreChanges held = kSettingsHeld;
      if (std::optional<HardwareKey> key = impl_->ResolveHeld(named, &held)) {
        if (auto answered = impl_->ReadCombined(workload, *key, as_of, width, held)) {
          return *answered;
        }
      }
    }
    store::ReadSnapshot snapshot(store::ConnectionOf(impl_->store));
    impl_->watch.Poll();
    Result<HardwareKey> key = ResolveInSnapshot(std::move(named), "gpu_model");
    if (!key.ok()) return key.status();
    return ReadInSnapshot(workload, *key, as_of, explain, width);
  });
}

}  // namespace hwrec
