// Status and Result<T>: how every public hwrec call reports failure.
// A Status is a value: success is free, and a failure carries a message a
// person can act on (what went wrong, which field or file, and the fix).
// Values are immutable once built and safe to share between threads.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "hwrec/export.h"

namespace hwrec {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller's input is wrong; the message names the field
  kNotFound,         // a named thing (store, pool, workload) does not exist
  kConflict,         // the input disagrees with what the store already holds
  kSchemaMismatch,   // the store's schema is newer, older or altered
  kReadOnly,         // a write was asked of a store opened read-only
  kIoError,          // the file system or SQLite failed
  kInternal,         // a broken invariant inside hwrec
};

class [[nodiscard]] HWREC_EXPORT Status {
 public:
  Status() = default;  // success

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(StatusCode::kNotFound, std::move(message));
  }
  static Status Conflict(std::string message) {
    return Status(StatusCode::kConflict, std::move(message));
  }
  static Status SchemaMismatch(std::string message) {
    return Status(StatusCode::kSchemaMismatch, std::move(message));
  }
  static Status ReadOnly(std::string message) {
    return Status(StatusCode::kReadOnly, std::move(message));
  }
  static Status IoError(std::string message) {
    return Status(StatusCode::kIoError, std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(StatusCode::kInternal, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: <message>", or "ok".
  std::string ToString() const;
  // This failure's code with another message (e.g. one with a secret
  // redacted); success stays success.
  Status WithMessage(std::string message) const {
    return ok() ? Status() : Status(code_, std::move(message));
  }

 private:
  template <typename T>
  friend class Result;
  // Reports a Result's value read on an error (its Status) and aborts.
  [[noreturn]] static void AbortOnValueRead(const Status& status);

  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or the Status that explains why there is none. Reading the
// value of a failed Result is a checked failure: it prints the Status to
// stderr and aborts, never undefined behaviour.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // Precondition: ok(); checked.
  T& value() & { return Checked(); }
  const T& value() const& { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &Checked(); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return Checked(); }

 private:
  T& Checked() {
    if (!value_.has_value()) Status::AbortOnValueRead(status_);
    return *value_;
  }
  const T& Checked() const {
    if (!value_.has_value()) Status::AbortOnValueRead(status_);
    return *value_;
  }

  std::optional<T> value_;
  Status status_;
};

}  // namespace hwrec
