// BulkWriteMode: a scope in which one connection writes many rows fast and
// stays crash-safe, for moves that rewrite most of a store (the legacy
// migration). Entering tunes the connection for large transactions; leaving
// restores what it was, also when the scope ends by an exception. Engine-
// neutral: the tuning itself lives with the engine (bulk_write.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "store/database.h"

namespace hwrec::store {

// While it lives, `db` writes each new page to the file once (a rollback
// journal instead of the WAL, when this is the store's only connection; fully
// synchronous while it lasts), keeps a larger page cache, and frees pages
// without zeroing them. Another connection keeping the store in WAL is not
// waited for: the mode then keeps the WAL. On PostgreSQL it does nothing.
// Not copyable; one per connection.
class BulkWriteMode {
 public:
  // Throws the engine's exception when the connection cannot be tuned.
  explicit BulkWriteMode(Connection& db);
  // Restores the connection; never throws (the store's next open restores
  // the journal mode, should restoring fail).
  ~BulkWriteMode();

  // Whether the rollback journal is in use (false: the store stayed in WAL).
  bool rollback_journal() const { return rollback_journal_; }

  BulkWriteMode(const BulkWriteMode&) = delete;
  BulkWriteMode& operator=(const BulkWriteMode&) = delete;

 private:
  Connection& db_;
  const bool sqlite_;
  std::int64_t cache_size_ = 0;
  std::int64_t secure_delete_ = 0;
  bool rollback_journal_ = false;
};

}  // namespace hwrec::store
