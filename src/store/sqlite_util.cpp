#include "store/sqlite_util.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <filesystem>

#include "hwrec/remedy.h"
#include "store/backup.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec::internal {

std::string StorePathIn(const std::string& what) {
  std::error_code ec;
  return !what.empty() && std::filesystem::is_regular_file(what, ec) ? what : std::string();
}

bool IsDamage(const std::exception& e) {
  const auto* sqlite = dynamic_cast<const SQLite::Exception*>(&e);
  if (sqlite == nullptr) return false;
  const int code = sqlite->getErrorCode() & 0xff;
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

std::string DamagedStoreMessage(const std::string& store_path, const std::string& what,
                                const std::exception& e) {
  const std::string store = store_path.empty() ? std::string("STORE") : store_path;
  const std::string backup = store_path.empty() ? std::string() : NewestBackup(store_path);
  const std::string during = what == store_path ? std::string() : fmt::format(" while {}", what);
  return fmt::format(
      "{}: the store is damaged: SQLite found a page it cannot read{} (SQLite: {}), and the "
      "command stopped: see what is damaged with {}, then restore the store from "
      "{}",
      store, during, e.what(), RemedyText(Remedy::kCheck, store),
      backup.empty() ? std::string("a backup") : "its newest backup, " + backup);
}

bool ForTheRetryingWriter(const Store& store, const std::exception& e) {
  const auto* engine = dynamic_cast<const store::EngineError*>(&e);
  return engine != nullptr && engine->retryable() && store::ConnectionOf(store).InTransaction();
}

Status StatusFromException(const std::exception& e, const std::string& store_path,
                           const std::string& what) {
  if (const auto* status = dynamic_cast<const StatusError*>(&e)) return status->status();
  if (dynamic_cast<const SQLite::Exception*>(&e) != nullptr) {
    if (IsDamage(e)) return Status::IoError(DamagedStoreMessage(store_path, what, e));
    return Status::IoError(what + ": " + e.what());
  }
  if (const auto* engine = dynamic_cast<const store::EngineError*>(&e)) {
    if (engine->retryable()) {
      return Status::IoError(fmt::format(
          "{}: {}: other writers kept changing the same rows through {} attempts; nothing of the "
          "last attempt was written: run it again",
          what, e.what(), store::kWriteAttempts));
    }
    return Status::IoError(what + ": " + e.what());
  }
  return Status::Internal(what + ": " + e.what());
}

}  // namespace hwrec::internal
