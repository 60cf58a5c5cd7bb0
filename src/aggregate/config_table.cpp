#include "aggregate/config_table.h"

namespace hwrec::internal {

namespace {
constexpr const char* kRowsSql = "SELECT key, value FROM config ORDER BY key";
}  // namespace

std::optional<std::string> ReadConfigValue(store::Connection& db, std::string_view key) {
  const auto query = db.Prepare("SELECT value FROM config WHERE key = ?");
  query->BindTextView(1, key);
  if (!query->Step()) return std::nullopt;
  return query->String(0);
}

std::vector<std::pair<std::string, std::string>> ReadConfigRows(store::Connection& db,
                                                                std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> rows;
  const auto query = db.Prepare(kRowsSql);
  while (query->Step()) {
    const std::string_view key = query->Text(0);
    if (key.substr(0, prefix.size()) != prefix) continue;
    std::string name(key.substr(prefix.size()));
    rows.emplace_back(std::move(name), query->String(1));
  }
  return rows;
}

void WriteConfigValue(store::Connection& db, std::string_view key, std::string_view value,
                      std::string_view description) {
  const auto upsert = db.Prepare(
      "INSERT INTO config (key, value, description) VALUES (?, ?, ?) "
      "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  upsert->BindTextView(1, key);
  upsert->BindTextView(2, value);
  upsert->BindTextView(3, description);
  upsert->Run();
}

bool UpdateConfigValue(store::Connection& db, std::string_view key, std::string_view value) {
  const auto update = db.Prepare("UPDATE config SET value = ? WHERE key = ?");
  update->BindTextView(1, value);
  update->BindTextView(2, key);
  return update->Run() > 0;
}

}  // namespace hwrec::internal
