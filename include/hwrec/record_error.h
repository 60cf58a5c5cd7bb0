// RecordError: the one shape of "this record (or this field of it) is wrong",
// used by every reader of records: observations, node pools, catalog rows,
// router settings, legacy rows held in quarantine.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "hwrec/export.h"

namespace hwrec {

struct HWREC_EXPORT RecordError {
  RecordError() = default;
  // A field of a record that stands alone (line 0).
  RecordError(std::string field_path, std::string why)
      : field(std::move(field_path)), reason(std::move(why)) {}
  RecordError(std::int64_t at_line, std::string field_path, std::string why)
      : line(at_line), field(std::move(field_path)), reason(std::move(why)) {}

  // 1-based line of a JSON-lines or CSV input, or position in a batch; 0 when
  // the record stands alone.
  std::int64_t line = 0;
  // The field's JSON path ("hardware.gpu_count"), a column name, or "" when
  // the record as a whole is wrong.
  std::string field;
  // What is wrong and what is expected instead.
  std::string reason;

  // "line 3: hardware.gpu_count: <reason>", leaving out what is unset.
  std::string ToString() const;
};

HWREC_EXPORT bool operator==(const RecordError& a, const RecordError& b);
inline bool operator!=(const RecordError& a, const RecordError& b) { return !(a == b); }

}  // namespace hwrec
