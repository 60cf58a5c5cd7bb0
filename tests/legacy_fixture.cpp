#include "legacy_fixture.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include "fixtures/legacy_store.h"
#include "fixtures/sqlite_bind.h"

namespace hwrec::test {

using fixtures::BindOrNull;

void MakeLegacy(const std::string& path) {
  const Status created = fixtures::CreateLegacyStore(path);
  INFO(created.message());
  REQUIRE(created.ok());
}

void AddLegacyPool(const std::string& path, const LegacyPoolSpec& p) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  SQLite::Statement s(db,
                      "INSERT INTO site_node_pools (node_pool_id, site_id, instance_type, "
                      "architecture, cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, "
                      "gpu_name) VALUES (?, ?, ?, 'x86_64', 64000, 549755813888, ?, ?, 8, ?)");
  s.bind(1, p.node_pool_id);
  s.bind(2, p.site_id);
  s.bind(3, p.instance_type);
  s.bind(4, p.gpu_count);
  BindOrNull(s, 5, p.gpu_mode);
  BindOrNull(s, 6, p.gpu_name);
  s.exec();
}

void AddLegacyRow(const std::string& path, const LegacyRowSpec& r) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  SQLite::Statement s(db,
                      "INSERT INTO site_observations (execution_id, site_id, action_image, "
                      "node_pool_id, node_pool_gpu, finished_at, status, duration_s, "
                      "instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, "
                      "gpu_mode, gpu_total, gpu_memory_peak_gb, cpu_millicores_p95, "
                      "memory_peak_bytes, hardware_profile_id) VALUES (?, ?, ?, ?, ?, ?, ?, 42.5, "
                      "?, 'x86_64', 64000, 549755813888, ?, ?, 8, ?, 1500, 4294967296, ?)");
  s.bind(1, r.execution_id);
  s.bind(2, r.site_id);
  s.bind(3, r.action_image);
  BindOrNull(s, 4, r.node_pool_id);
  BindOrNull(s, 5, r.node_pool_gpu);
  s.bind(6, r.finished_at);
  s.bind(7, r.status);
  s.bind(8, r.instance_type);
  BindOrNull(s, 9, r.gpu_count);
  BindOrNull(s, 10, r.gpu_mode);
  BindOrNull(s, 11, r.gpu_memory_peak_gb);
  BindOrNull(s, 12, r.hardware_profile_id);
  s.exec();
}

std::int64_t CountRows(const std::string& path, const std::string& table) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  if (!db.tableExists(table)) return 0;
  return db.execAndGet("SELECT count(*) FROM \"" + table + "\"").getInt64();
}

void MakeSeededLegacy(const std::string& path, int rows, int seed) {
  const Status written = fixtures::WriteLegacyFixture(path, rows, static_cast<std::uint64_t>(seed));
  INFO(written.message());
  REQUIRE(written.ok());
}

}  // namespace hwrec::test
