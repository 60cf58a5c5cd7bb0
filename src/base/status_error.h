// The one internal exception hwrec throws inside src/: it carries a Status
// from deep inside a loop or callback to the public boundary unchanged (code
// and message), where store/guarded.h returns it. SQLite's own exceptions are
// the only other kind that cross src/.
#pragma once

#include <exception>
#include <utility>

#include "hwrec/status.h"

namespace hwrec::internal {

class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const Status& status() const { return status_; }

 private:
  Status status_;
};

// Throws StatusError unless `status` is OK.
inline void ThrowIfError(Status status) {
  if (!status.ok()) throw StatusError(std::move(status));
}

}  // namespace hwrec::internal
