#include "hwrec/status.h"

#include <cstdio>
#include <cstdlib>

namespace hwrec {

namespace {
const char* CodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kConflict:
      return "conflict";
    case StatusCode::kSchemaMismatch:
      return "schema mismatch";
    case StatusCode::kReadOnly:
      return "read-only";
    case StatusCode::kIoError:
      return "I/O error";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown";
}
}  // namespace

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace hwrec

namespace hwrec::internal {

void ValueOfFailedResult(const Status& status) {
  std::fprintf(stderr, "hwrec: the value of a failed Result was read (%s); check ok() first\n",
               status.ToString().c_str());
  std::abort();
}

}  // namespace hwrec::internal
