// GpuCatalog: every known card and the partitions it can be split into.
// The catalog ships with the store (seeded by a migration) and operators add
// cards with ImportCatalogCsv (`hwrec catalog import`). A loaded GpuCatalog is
// an immutable in-memory snapshot, safe to share between threads.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/hardware_key.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/record_error.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// One way to use a card: the whole card (`full`) or one MIG profile.
struct HWREC_EXPORT GpuPartition {
  std::string gpu_config_id;    // stable slug, e.g. "nvidia-a100-80gb-mig-1g.10gb"
  std::string brand;            // "NVIDIA"
  std::string model;            // "A100 80GB"
  std::string mode;             // "full" or "mig-1g.10gb": what node pools record as gpu_mode
  double memory_gb = 0;         // memory this partition offers
  int compute_slices = 0;       // compute slices it holds (the card's total when full)
  double compute_fraction = 0;  // compute_slices / the card's compute slices
};

struct HWREC_EXPORT GpuModel {
  std::string brand;
  std::string model;
  double memory_gb = 0;
  int compute_slices = 1;                // 7 for A100/H100/H200, 4 for A30, 1 for cards without MIG
  std::vector<GpuPartition> partitions;  // `full` first, then MIG profiles by size
};

// "nvidia-a100-80gb-mig-1g.10gb" from ("NVIDIA", "A100 80GB", "mig-1g.10gb").
HWREC_EXPORT std::string GpuConfigId(std::string_view brand, std::string_view model,
                                     std::string_view mode);

class HWREC_EXPORT GpuCatalog {
 public:
  // The store's catalog. Returns kSchemaMismatch when the store predates the
  // catalog (run `hwrec migrate`), kIoError when the store fails.
  static Result<GpuCatalog> Load(const Store& store);

  const std::vector<GpuModel>& models() const { return models_; }
  // Exact catalog spelling of brand and model.
  const GpuModel* FindModel(std::string_view brand, std::string_view model) const;
  // The model with this spelling under any brand (first match), for records
  // that carry a model but no brand.
  const GpuModel* FindModelAnyBrand(std::string_view model) const;
  const GpuPartition* FindPartition(std::string_view brand, std::string_view model,
                                    std::string_view mode) const;
  // Partitions whose id, brand, model or mode match every whitespace-separated
  // token of `query`, case-insensitively. An empty query matches everything.
  std::vector<GpuPartition> Search(std::string_view query) const;
  // Fills a missing gpu_brand with the brand of gpu_model when the catalog
  // knows that model; nothing else changes. Ingest and `hwrec hardware-id`
  // both apply it before computing ids, so they agree on hp:v2.
  void FillBrand(HardwareProfile* profile) const;
  // Up to `limit` catalog model spellings closest to `model`, best first.
  std::vector<std::string> ClosestModels(std::string_view model, std::size_t limit = 3) const;
  // The model a caller named, in the catalog's spelling (under `brand` when
  // given, else under any brand). kInvalidArgument when the catalog has no
  // such model: the message names it, the closest spellings and the
  // `unknown` model of pools whose model is not recorded.
  Result<GpuModel> ResolveModel(const std::optional<std::string>& brand,
                                std::string_view model) const;
  // The hardware key a caller named, read by this catalog as
  // ResolveHardwareKey reads it (below), without reading the store.
  Result<HardwareKey> ResolveKey(HardwareKey named,
                                 std::string_view model_field = "gpu_model") const;

 private:
  std::vector<GpuModel> models_;
};

// The hardware key a caller named, read as `hwrec recommend` and
// Store.recommend read it: the GPU model in the catalog's spelling with its
// brand filled in; no model, or `unknown`, is the shared unknown-model
// population. kInvalidArgument when the catalog has no such model (the message
// starts "<model_field>: " and names the closest spellings), and when a
// CPU-only key names a GPU brand or model.
HWREC_EXPORT Result<HardwareKey> ResolveHardwareKey(const Store& store, HardwareKey named,
                                                    std::string_view model_field = "gpu_model");

// A rejected CSV row: its line, the column, and what is wrong.
using CatalogImportError = RecordError;

struct HWREC_EXPORT CatalogImportSummary {
  std::int64_t added = 0;      // partitions new to the catalog
  std::int64_t unchanged = 0;  // rows identical to what the catalog holds
  std::vector<CatalogImportError> errors;
};

// Imports operator additions from CSV with the header
//   brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices
// (one row per partition; `mode` is `full` or `mig-<profile>`). Every row is
// validated; rows with errors are reported and skipped, the others are added in
// one transaction. A row that would change an existing partition is an error.
// Returns kReadOnly or kSchemaMismatch when the store cannot be written
// (Store::CheckWritable), kInvalidArgument when the CSV is empty or its
// header is not exactly the one above, kIoError when reading `csv` or the
// store fails; bad rows are `errors` in the summary, not an error status.
HWREC_EXPORT Result<CatalogImportSummary> ImportCatalogCsv(Store& store, std::istream& csv);

}  // namespace hwrec
