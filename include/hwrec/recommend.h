// RecommendationQuery: what an execution of a workload should request on a
// given kind of hardware, with where each figure comes from (hwrec/figure.h).
// Figures are read from per-key aggregates that ingest keeps up to date, so a
// query costs the same at 10 or 10 million observations. A query object uses
// its Store's connection, with statements it keeps prepared between calls: one
// thread at a time, and the Store outlives it. Each call reads history and
// settings as they are then.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "hwrec/export.h"
#include "hwrec/figure.h"
#include "hwrec/hardware_key.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// Whether Recommend says why each figure is what it is (Figure::reason).
enum class Explain { kNo, kYes };

class HWREC_EXPORT RecommendationQuery {
 public:
  // A query on `store`, which must outlive it. Reads nothing yet: a store
  // too old for recommendations is reported by Recommend. Never fails today;
  // a Result so that every store-bound object is opened the same way.
  static Result<std::unique_ptr<RecommendationQuery>> Open(const Store& store);
  RecommendationQuery(const RecommendationQuery&) = delete;
  RecommendationQuery& operator=(const RecommendationQuery&) = delete;
  ~RecommendationQuery();

  // `as_of` (default now) only stamps the answer (see Recommendation::as_of).
  // An unknown workload yields figures with provenance none. Returns
  // kInvalidArgument when `as_of` is not a finite time in range,
  // kSchemaMismatch when the store is older than the recommendation tables
  // (run `hwrec migrate`), kIoError when the store cannot be read.
  // With Explain::kYes each figure that has a value carries its reason: the
  // statistic and, for max of last N, the execution that set the max (its
  // execution_id, time and any OOM bump), for a percentile the bucket that
  // holds it and the decayed share of history at or below it, then the
  // margin and rounding that reach the value. It costs one lookup of the
  // observations per max figure; without it Recommend reads no observation.
  // `width` (GPUs held, 1 or more) asks for the GPU memory per GPU of
  // executions that held that many (Recommendation::width); kInvalidArgument
  // when it is below 1.
  Result<Recommendation> Recommend(const std::string& workload, const HardwareKey& hardware,
                                   std::optional<double> as_of = std::nullopt,
                                   Explain explain = Explain::kNo,
                                   std::optional<std::int64_t> width = std::nullopt);

  // ResolveHardwareKey (hwrec/catalog.h) with the catalog kept between
  // calls and read again only when the store's catalog changed (an import by
  // any process): what a host that names keys per call, such as the Python
  // module, resolves them with.
  Result<HardwareKey> ResolveKey(HardwareKey named, std::string_view model_field = "gpu_model");

  // Recommend for a key as a caller named it, read as ResolveKey reads it:
  // the key resolved and the figures read in one snapshot of the store, one
  // read where ResolveKey then Recommend make two. Recommendation::hardware
  // is the resolved key. Returns what either of them returns.
  Result<Recommendation> RecommendNamed(const std::string& workload, HardwareKey named,
                                        std::optional<double> as_of = std::nullopt,
                                        Explain explain = Explain::kNo,
                                        std::optional<std::int64_t> width = std::nullopt);

 private:
  explicit RecommendationQuery(const Store& store);
  Result<HardwareKey> ResolveInSnapshot(HardwareKey named, std::string_view model_field);
  Result<Recommendation> ReadInSnapshot(const std::string& workload, const HardwareKey& hardware,
                                        std::optional<double> as_of, Explain explain,
                                        std::optional<std::int64_t> width);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hwrec
