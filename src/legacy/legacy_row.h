// LegacyRow: one row of the legacy site_observations table (or of the
// legacy_quarantine table, which keeps the same fields), and its conversion
// into the Observation it stands for. Plain data; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/observation.h"
#include "store/database.h"
#include "store/row_source_table.h"

namespace hwrec::internal {

// A value SQLite kept in a column of another type, which reading it as the
// column's type would change: text in a number column (`2026-01-01T…` reads
// as 2026), a fraction in a whole-number one (1500.7 reads as 1500). The row
// is refused naming the column, and a quarantined row keeps the value as read.
struct MistypedValue {
  int column = 0;                                   // in kLegacyColumns' order
  store::ValueKind kind = store::ValueKind::kText;  // kText, kBlob or kReal
  std::string bytes;                                // kText and kBlob
  double real = 0;                                  // kReal
  FieldError error;
};

struct LegacyRow {
  std::int64_t id = 0;
  std::string execution_id;
  std::string site_id;
  std::string action_image;
  std::optional<std::string> node_pool_id;
  double finished_at = 0;
  std::string status;
  std::optional<double> duration_s;
  std::optional<std::string> hardware_profile_id;
  HardwareProfile hardware;  // instance_type … gpu_total as recorded; no brand or model
  std::optional<std::string> node_pool_gpu;
  // What the execution measured and requested, in an Observation's own
  // fields (gpu_compute_fraction through requested); its other fields are
  // unset here: the row's columns above hold them as recorded.
  Observation measured;
  // Values of the wrong type, in column order; the fields above hold 0 there.
  std::vector<MistypedValue> mistyped;
};

// The legacy columns in the order ReadLegacyRow and LegacyValues use, with
// `id` first; shared by site_observations and legacy_quarantine (where `id`
// numbers the quarantine and the legacy id is kept as `legacy_id`).
extern const char* const kLegacyColumns;
inline constexpr int kLegacyColumnCount = 28;
inline constexpr int kFinishedAtColumn = 5;  // finished_at's place in kLegacyColumns

// Splits a column list ("a, b, c") into names.
std::vector<std::string> ColumnListNames(const std::string& list);

// Reads columns [first, first + kLegacyColumnCount) of the current row.
void ReadLegacyRow(const store::Statement& statement, int first, LegacyRow* row);
// Fills `values[0, kLegacyColumnCount)` with `row`, in kLegacyColumns' order.
// The values point into `row`.
void LegacyValues(const LegacyRow& row, SqlValue* values);

// The observation the row records, as sent (hardware without brand or model).
// Nullopt with `*errors` when a value is of the wrong type (one error per
// column; nothing else is judged then), or else with every problem of its
// values: a status hwrec does not know, each of ObservationProblems. `read`,
// when given, receives what was read of a row refused for its values.
std::optional<Observation> ToValidObservation(const LegacyRow& row, std::vector<FieldError>* errors,
                                              Observation* read = nullptr);

}  // namespace hwrec::internal
