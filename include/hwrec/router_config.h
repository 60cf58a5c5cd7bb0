// RouterConfig: the data the width-aware router builds ladders from (DESIGN §8)
// — GCP machine types, GPU quotas, SLURM lanes, the RunPod terminal rung,
// dispatch intents and settings. Kept in the store, seeded by a migration and
// edited only through these calls, which validate the whole configuration
// before anything is written. Plain values: safe to copy and share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// GCP provisioning models, spelt as the GCP API spells them. STANDARD is on-demand.
enum class Provisioning { kSpot, kFlexStart, kStandard };
HWREC_EXPORT std::string_view ToString(
    Provisioning provisioning);  // "SPOT", "FLEX_START", "STANDARD"

// Which GCP quota a provisioning model draws on: SPOT and FLEX_START are preemptible.
enum class QuotaClass { kOnDemand, kPreemptible };
HWREC_EXPORT std::string_view ToString(QuotaClass quota_class);  // "on_demand", "preemptible"
HWREC_EXPORT QuotaClass QuotaClassOf(Provisioning provisioning);

struct HWREC_EXPORT GcpMachineType {
  std::string machine_type;  // "a2-ultragpu-8g"
  std::string gpu_brand;
  std::string gpu_model;  // catalog spelling: "A100 80GB"
  int gpu_count = 1;
  int vcpus = 1;
  double memory_gb = 0;
  bool allows_spot = true;
  bool allows_flex_start = true;
  bool allows_standard = true;

  bool Allows(Provisioning provisioning) const;
};

// GPUs a quota admits for one GPU family and quota class; 0 admits none.
struct HWREC_EXPORT GpuQuota {
  std::string gpu_model;
  QuotaClass quota_class = QuotaClass::kOnDemand;
  std::string metric;  // GCP's name, e.g. "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS"
  int gpus = 0;
};

struct HWREC_EXPORT SlurmLane {
  std::string lane;  // rung id "slurm/<lane>"
  int position = 0;  // lanes are tried in ascending position
  std::string partition;
  std::string gpu_brand;
  std::string gpu_model;
  int max_gpus = 1;
};

struct HWREC_EXPORT RunPodRung {
  std::string name;      // rung id "runpod/<name>"
  std::string gpu_type;  // RunPod's GPU type id
  std::string gpu_brand;
  std::string gpu_model;
  int max_gpus = 1;
};

struct HWREC_EXPORT Intent {
  std::string intent;          // "capture-7b"
  std::string workload_image;  // whose recommendations decide which cards fit
  std::string legacy_machine;  // the single-GPU GCP machine width 1 uses
  int min_width = 1;
};

struct HWREC_EXPORT RouterSettings {
  double short_job_max_hours = 6;     // below: SPOT leads; at or above: FLEX_START leads
  double flex_start_max_hours = 168;  // longer jobs get no FLEX_START rung
  int gcp_daily_attempt_cap = 20;     // dispatches per UTC day that may try GCP
};

struct HWREC_EXPORT RouterConfig {
  RouterSettings settings;
  std::vector<GcpMachineType> machines;  // ordered by GPU model, then GPU count
  std::vector<GpuQuota> quotas;
  std::vector<SlurmLane> lanes;  // ordered by position
  RunPodRung runpod;
  std::vector<Intent> intents;  // ordered by name

  const Intent* FindIntent(std::string_view name) const;
  const GcpMachineType* FindMachine(std::string_view machine_type) const;
  const GpuQuota* FindQuota(std::string_view gpu_model, QuotaClass quota_class) const;
};

// The stored configuration. Returns kIoError when the store cannot be read.
HWREC_EXPORT Result<RouterConfig> LoadRouterConfig(const Store& store);

// Checks every cross-reference (GPU models against the store's catalog) and
// range; the message names the entry, the field and the fix. Returns
// kInvalidArgument for the first problem, kIoError when the store cannot be read.
HWREC_EXPORT Status ValidateRouterConfig(const RouterConfig& config, const Store& store);

// Replaces the stored configuration with `config` after validating it.
// Returns kInvalidArgument as ValidateRouterConfig, kReadOnly for a read-only
// store, kIoError when it cannot be written.
HWREC_EXPORT Status SaveRouterConfig(Store& store, const RouterConfig& config);

// One setting by name (short_job_max_hours, flex_start_max_hours,
// gcp_daily_attempt_cap), validated. Returns kInvalidArgument for an unknown
// key or a value out of range, kReadOnly, kIoError as SaveRouterConfig.
HWREC_EXPORT Status SetRouterSetting(Store& store, const std::string& key,
                                     const std::string& value);

// The configuration as JSON (what ImportRouterConfig reads back).
HWREC_EXPORT std::string RouterConfigToJson(const RouterConfig& config);

// Merges a JSON document into the stored configuration: entries are matched by
// their key (machine_type, gpu_model+class, lane, intent) and replaced or added;
// `"remove": true` deletes one; "settings" and "runpod" replace theirs. The
// result is validated as a whole; on any error nothing is written. Returns
// kInvalidArgument, naming the section, entry and field, for a bad document or
// configuration, kReadOnly for a read-only store, kIoError when it cannot be
// written.
HWREC_EXPORT Status ImportRouterConfig(Store& store, std::string_view json_text);

}  // namespace hwrec
