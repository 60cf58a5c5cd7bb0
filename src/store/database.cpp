// What every engine's Connection and Statement share, and RunWrite.
#include <algorithm>
#include <chrono>
#include <optional>
#include <random>
#include <thread>

#include "store/database.h"

namespace hwrec::store {

std::optional<std::int64_t> Statement::OptionalInt64(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int64(column);
}

std::optional<double> Statement::OptionalDouble(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Double(column);
}

std::optional<std::string> Statement::OptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return String(column);
}

void Statement::AssignText(int column, std::string* out) const {
  const std::string_view text = Text(column);
  out->assign(text.data(), text.size());
}

void Statement::AssignOptionalText(int column, std::optional<std::string>* out) const {
  if (IsNull(column)) {
    out->reset();
    return;
  }
  if (!out->has_value()) out->emplace();
  AssignText(column, &**out);
}

std::optional<std::int64_t> Connection::QueryInt64(std::string_view sql) {
  auto statement = Prepare(sql);
  if (!statement->Step()) return std::nullopt;
  return statement->OptionalInt64(0);
}

std::optional<std::string> Connection::QueryText(std::string_view sql) {
  auto statement = Prepare(sql);
  if (!statement->Step()) return std::nullopt;
  return statement->OptionalText(0);
}

std::vector<std::string> Connection::QueryTexts(std::string_view sql) {
  std::vector<std::string> values;
  const auto statement = Prepare(sql);
  while (statement->Step()) values.push_back(statement->String(0));
  return values;
}

WriteTransaction::WriteTransaction(Connection& db, LockMode mode) : db_(db) {
  db_.Begin(mode == LockMode::kDeferred ? LockMode::kImmediate : mode);
}

WriteTransaction::~WriteTransaction() {
  if (open_) db_.RollbackQuietly();
}

void WriteTransaction::Commit() {
  db_.Commit();
  open_ = false;
}

ReadSnapshot::ReadSnapshot(Connection& db) : db_(db) {
  if (!db_.InTransaction()) {
    db_.Begin(LockMode::kDeferred);
    began_ = true;
  }
}

ReadSnapshot::~ReadSnapshot() {
  if (!began_) return;
  // Nothing was written: rolling back releases the snapshot as a commit would.
  db_.RollbackQuietly();
}

void RunWriteAttempts(Connection& db, const std::function<void()>& attempt,
                      const std::function<void()>& before_retry, Rerun rerun) {
  std::optional<std::minstd_rand> jitter;  // seeded on a first retry: seeding opens a device
  // Since when the connection has been lost, through consecutive attempts.
  bool lost_before = false;
  std::chrono::steady_clock::time_point lost_since;
  for (int cancelled = 0;;) {
    bool lost = false;
    try {
      attempt();
      return;
    } catch (const EngineError& e) {
      lost = rerun == Rerun::kAlsoAfterLostConnection && e.connection_lost();
      if (db.InTransaction() || !(e.retryable() || lost)) throw;
      const auto now = std::chrono::steady_clock::now();
      if (!lost) {
        lost_before = false;
        if (++cancelled >= kWriteAttempts) throw;
      } else if (!lost_before) {
        lost_before = true;
        lost_since = now;
      } else if (now - lost_since > kReconnectWindow) {
        throw;
      }
    }
    if (before_retry) before_retry();
    if (lost) {  // the server restarting, or a standby being promoted
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    // Up to 2^min(cancelled,7) ms, randomised so that the writers that met do not meet again.
    const int ceiling = 1 << std::min(cancelled, 7);
    if (!jitter) jitter.emplace(std::random_device{}());
    std::this_thread::sleep_for(std::chrono::microseconds(
        std::uniform_int_distribution<int>(ceiling * 250, ceiling * 1000)(*jitter)));
  }
}

}  // namespace hwrec::store
