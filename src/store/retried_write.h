// RetriedWrite: store::RunWrite for an attempt that returns a Status or a
// Result<T>. The attempt opens and commits its own WriteTransaction; when
// PostgreSQL cancels it (a serialization failure or deadlock) it runs again,
// and the value of the attempt that finished is returned. An attempt that
// returns without committing rolls back and is not retried.
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "store/database.h"

namespace hwrec::store {

template <typename Fn>
auto RetriedWrite(Connection& db, Fn&& attempt, const std::function<void()>& before_retry = {})
    -> decltype(attempt()) {
  std::optional<decltype(attempt())> result;
  RunWrite(
      db, [&] { result.emplace(attempt()); }, before_retry);
  return std::move(*result);
}

}  // namespace hwrec::store
