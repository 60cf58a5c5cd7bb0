// Helpers for the legacy migration tests: schema-1 stores with hand-written
// site_node_pools and site_observations rows, and the seeded legacy fixture.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hwrec/legacy_migration.h"

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

// A new schema-1 store at `path`; fails the test when it cannot be made.
void MakeLegacy(const std::string& path);

void AddLegacyPool(const std::string& path, const LegacyPoolSpec& p);
void AddLegacyRow(const std::string& path, const LegacyRowSpec& r);

// The rows of `table` at `path`, 0 when there is no such table.
std::int64_t CountRows(const std::string& path, const std::string& table);

// The seeded legacy fixture of `rows` rows at `path` (fixtures::WriteLegacyFixture,
// which `hwrec-bench fixture legacy` writes too); fails the test when it cannot.
void MakeSeededLegacy(const std::string& path, int rows, int seed);

}  // namespace hwrec::test
