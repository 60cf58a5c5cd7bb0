// The public boundary of every store-bound call: runs the work and turns what
// it throws into a Status. A StatusError's Status comes back unchanged; an
// engine failure becomes kIoError (a damaged store says how to check and
// restore it); anything else is kInternal. Every message names the action.
#pragma once

#include <exception>
#include <string>

#include "base/status_error.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::internal {

// The Status for `e`, thrown while doing `what` on the store at `store_path`
// ("" when unknown).
Status StatusFromException(const std::exception& e, const std::string& store_path,
                           const std::string& what);

// Whether `e` says the store's file is damaged: such a failure is for Guarded
// to report, with how to check and restore the store.
bool IsDamage(const std::exception& e);

// `what` when it names an existing file (a store's path), else "".
std::string StorePathIn(const std::string& what);

// Runs `fn` (returning Status or Result<T>); `what` describes the action and
// is taken as the store's path when it names an existing file.
template <typename Fn>
auto Guarded(const std::string& what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const StatusError& e) {
    return e.status();
  } catch (const std::exception& e) {
    return StatusFromException(e, StorePathIn(what), what);
  }
}

// Whether `e` must reach the store::RunWrite that holds the open
// transaction it cancelled (a serialization failure inside a retried write),
// rather than become a Status here.
bool ForTheRetryingWriter(const Store& store, const std::exception& e);

// The same for an action on `store` that `what` describes.
template <typename Fn>
auto Guarded(const Store& store, const std::string& what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const StatusError& e) {
    return e.status();
  } catch (const std::exception& e) {
    if (ForTheRetryingWriter(store, e)) throw;
    return StatusFromException(e, store.path(), what);
  }
}

}  // namespace hwrec::internal
