#include "hwrec/status.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/enum_names.h"

namespace hwrec {

namespace {

constexpr internal::EnumName<StatusCode> kCodeNames[] = {
    {StatusCode::kOk, "ok"},
    {StatusCode::kInvalidArgument, "invalid argument"},
    {StatusCode::kNotFound, "not found"},
    {StatusCode::kConflict, "conflict"},
    {StatusCode::kSchemaMismatch, "schema mismatch"},
    {StatusCode::kReadOnly, "read-only"},
    {StatusCode::kIoError, "I/O error"},
    {StatusCode::kInternal, "internal error"},
};

}  // namespace

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(internal::NameOf(kCodeNames, code_)) + ": " + message_;
}

void Status::AbortOnValueRead(const Status& status) {
  std::fprintf(stderr, "hwrec: the value of a failed Result was read (%s); check ok() first\n",
               status.ToString().c_str());
  std::abort();
}

}  // namespace hwrec
