#include "hwrec/record_error.h"

namespace hwrec {

std::string RecordError::ToString() const {
  std::string text;
  if (line > 0) text += "line " + std::to_string(line) + ": ";
  if (!field.empty()) text += field + ": ";
  return text + reason;
}

bool operator==(const RecordError& a, const RecordError& b) {
  return a.line == b.line && a.field == b.field && a.reason == b.reason;
}

}  // namespace hwrec
