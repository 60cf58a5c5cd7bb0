// Legacy quarantine: the rows of the hp:v2 migration whose GPU model could
// not be resolved. Each keeps every original field and the reason. An operator
// attaches a GPU model to some of them (by id, site, node pool, GPU name or
// reason), or releases rows of GPU pools with no recorded model into the
// shared unknown-model population, and they move into observations;
// aggregates and the recommendations of the keys they touch are refreshed in
// the same transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// The most telling fields of a quarantined row (the table holds all of them).
struct HWREC_EXPORT QuarantinedRow {
  std::int64_t id = 0;  // the row's id in quarantine (`--id`)
  std::string execution_id;
  std::string site_id;
  std::string action_image;
  std::optional<std::string> node_pool_id;
  std::optional<double> finished_at;  // nullopt when the row holds no number there
  std::optional<std::string> instance_type;
  std::optional<std::string> gpu_mode;
  std::optional<std::string> node_pool_gpu;  // the GPU name the row carried
  std::optional<std::string> hardware_profile_id;
  std::string reason_code;  // e.g. "gpu_name_not_in_catalog"
  std::string reason;       // what is missing and how to resolve it
};

// Which rows: every given criterion must match. An empty filter matches all.
struct HWREC_EXPORT QuarantineFilter {
  std::vector<std::int64_t> ids;
  std::optional<std::string> site_id;
  std::optional<std::string> node_pool_id;
  std::optional<std::string> node_pool_gpu;
  std::optional<std::string> reason_code;

  bool empty() const {
    return ids.empty() && !site_id && !node_pool_id && !node_pool_gpu && !reason_code;
  }
};

// Rows in quarantine, oldest legacy id first. Returns kSchemaMismatch when the
// store has no quarantine (not migrated yet), kIoError when it cannot be read.
HWREC_EXPORT Result<std::vector<QuarantinedRow>> ListQuarantine(
    const Store& store, const QuarantineFilter& filter = {});

struct HWREC_EXPORT QuarantineResolveSummary {
  std::int64_t matched = 0;                // rows the filter selected
  std::int64_t moved = 0;                  // now observations
  std::int64_t moved_by_own_hardware = 0;  // of them, routed without the model (see below)
  std::vector<QuarantinedRow> kept;        // still quarantined, each with its new reason
  std::int64_t recommendations = 0;        // materialised rows refreshed
};

// The gpu_model that releases rows into the shared unknown-model population.
inline constexpr const char* kUnknownGpuModel = "unknown";

// How ResolveQuarantine resolves rows: which, and with what GPU model.
struct HWREC_EXPORT QuarantineResolveOptions {
  // Which rows. An empty filter is refused unless `all` says every row.
  QuarantineFilter filter;
  bool all = false;
  // The catalog's brand and model to attach; without a model every row goes
  // by its own hardware or stays; a brand needs a model. kUnknownGpuModel
  // releases rows into the shared unknown-model population (below).
  std::optional<std::string> gpu_brand;
  std::optional<std::string> gpu_model;
};

// Attaches `options.gpu_model` (catalog spelling; `gpu_brand` optional) to the
// rows `options.filter` selects and moves them into observations. A row
// whose gpu_mode is not a partition of that model, or that is otherwise
// invalid, stays with its new reason. A row tries its own hardware first, as
// the migration routes it, when that resolves and the row is CPU-only (it
// never gets a GPU model) or was quarantined for a value (invalid_field:
// mended since), then the model; without a model, every row goes by its own
// hardware or stays.
// kUnknownGpuModel ("unknown") releases rows of GPU pools with no recorded
// model into the shared unknown-model population instead, never a guess:
// stored as ingest stores a GPU whose model is not recorded (no model, no
// brand but a registered pool's, the gpu_mode's share assumed from config
// total_compute_slices). A row that records a GPU name or model (its own or
// its pool's), or no GPU at all, stays under its reason code, with why.
// Returns kInvalidArgument for an empty filter without `all`, a model not in
// the catalog, a brand without a model or with the unknown one, kReadOnly for
// a read-only store, kSchemaMismatch when it has no quarantine, kIoError when
// it cannot be written.
HWREC_EXPORT Result<QuarantineResolveSummary> ResolveQuarantine(
    Store& store, const QuarantineResolveOptions& options);

}  // namespace hwrec
