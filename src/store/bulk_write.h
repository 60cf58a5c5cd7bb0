// BulkWriteMode: a scope in which one connection writes a large batch (the
// legacy migration's move) as fast as it safely can. While this is the store's
// only connection it leaves WAL for a rollback journal, so the new pages are
// written to the file once, where a WAL writes them twice (to the WAL, then at
// checkpoint); rollback journals are as crash-safe as WAL, with synchronous =
// FULL while it lasts. The page cache is enlarged to 64 MiB, which keeps the
// indexes' working pages cached while the batch writes, and secure_delete is
// FAST: emptying a large table would otherwise zero and journal every page of
// it. Everything is restored when the scope ends, whatever happened. Open it
// before the write transaction. One thread at a time, like the connection.
#pragma once

#include <cstdint>

#include "store/database.h"

namespace hwrec::store {

class BulkWriteMode {
 public:
  explicit BulkWriteMode(Connection& db);
  BulkWriteMode(const BulkWriteMode&) = delete;
  BulkWriteMode& operator=(const BulkWriteMode&) = delete;
  ~BulkWriteMode();  // never throws

 private:
  Connection& db_;
  std::int64_t cache_size_ = 0;
  std::int64_t secure_delete_ = 0;
  bool rollback_journal_ = false;
};

}  // namespace hwrec::store
