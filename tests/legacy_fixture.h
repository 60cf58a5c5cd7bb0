// Helpers for the legacy migration tests: schema-1 stores with hand-written
// site_node_pools and site_observations rows, and the bench's fixture writer.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "fixtures/legacy_store.h"
#include "fixtures/sqlite_bind.h"
#include "hwrec/legacy_migration.h"
#include "test_support.h"

namespace hwrec::test {

// A legacy pool row; every field but the id and site may be absent.
struct LegacyPoolSpec {
  std::string node_pool_id;
  std::string site_id = "site-a";
  std::string instance_type = "dgx-node";
  std::optional<std::string> gpu_mode = "full";
  std::int64_t gpu_count = 1;
  std::optional<std::string> gpu_name;
};

// A legacy history row; the hardware defaults to one whole card on "dgx-node".
struct LegacyRowSpec {
  std::string execution_id;
  std::string site_id = "site-a";
  std::string action_image = "registry/train:1";
  std::optional<std::string> node_pool_id;
  std::optional<std::string> node_pool_gpu;
  double finished_at = 1788220800;
  std::string status = "success";
  std::string instance_type = "dgx-node";
  std::optional<std::int64_t> gpu_count = 1;
  std::optional<std::string> gpu_mode = "full";
  std::optional<double> gpu_memory_peak_gb = 10;
  std::optional<std::string> hardware_profile_id;
};

inline LegacyRowSpec Row(const std::string& execution_id) {
  LegacyRowSpec row;
  row.execution_id = execution_id;
  return row;
}

// A row of a node without GPUs, measuring no GPU.
inline LegacyRowSpec CpuOnlyRow(const std::string& execution_id) {
  LegacyRowSpec row = Row(execution_id);
  row.gpu_count = 0;
  row.gpu_mode = std::nullopt;
  row.gpu_memory_peak_gb = std::nullopt;
  return row;
}

inline void MakeLegacy(const std::string& path) {
  const Status created = fixtures::CreateLegacyStore(path);
  INFO(created.message());
  REQUIRE(created.ok());
}

using fixtures::BindOrNull;

inline void AddLegacyPool(const std::string& path, const LegacyPoolSpec& p) {
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

inline void AddLegacyRow(const std::string& path, const LegacyRowSpec& r) {
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

inline std::int64_t CountRows(const std::string& path, const std::string& table) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  if (!db.tableExists(table)) return 0;
  return db.execAndGet("SELECT count(*) FROM \"" + table + "\"").getInt64();
}

// `hwrec-bench fixture legacy --rows N --seed S PATH`.
inline void WriteBenchFixture(const std::string& path, int rows, int seed) {
  const CommandResult result =
      RunShell(ShellQuote(HWREC_BENCH_PATH) + " fixture legacy --rows " + std::to_string(rows) +
               " --seed " + std::to_string(seed) + " " + ShellQuote(path));
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
}

}  // namespace hwrec::test
