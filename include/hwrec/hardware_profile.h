// HardwareProfile: the shape of a node pool, and its hp:v1 / hp:v2 ids.
// The ids let hwrec trace what the Runner sends: hp:v1 hashes the pool's
// shape only, hp:v2 adds the GPU brand and model. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

// Every field may be absent; an absent value is `null` in the canonical form.
struct HWREC_EXPORT HardwareProfile {
  std::optional<std::string> instance_type;
  std::optional<std::string> architecture;
  std::optional<std::int64_t> cpu_millicores;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> gpu_count;
  std::optional<std::string> gpu_mode;  // "full" or "mig-<profile>"
  std::optional<std::int64_t> gpu_total;
  std::optional<std::string> gpu_brand;  // catalog spelling, e.g. "NVIDIA"
  std::optional<std::string> gpu_model;  // catalog spelling, e.g. "A100 80GB"

  bool operator==(const HardwareProfile& other) const;
  bool operator!=(const HardwareProfile& other) const { return !(*this == other); }
};

enum class ProfileIdVersion { kV1 = 1, kV2 = 2 };

// The canonical JSON array, e.g. ["hp:v2","a2-highgpu-1g",...,"NVIDIA","A100 40GB"]:
// no whitespace, absent values as null, RFC 8259 escapes, non-ASCII as UTF-8.
// Returns kInvalidArgument only when a string is not valid UTF-8.
HWREC_EXPORT Result<std::string> CanonicalProfile(const HardwareProfile& profile,
                                                  ProfileIdVersion version);

// "hp:vN:" + the first 16 hex digits of SHA-256 of the canonical form.
// Returns kInvalidArgument as CanonicalProfile.
HWREC_EXPORT Result<std::string> HardwareProfileId(const HardwareProfile& profile,
                                                   ProfileIdVersion version);

// The version named by an id's prefix ("hp:v1:..." or "hp:v2:..."), if well formed.
HWREC_EXPORT std::optional<ProfileIdVersion> ProfileIdVersionOf(std::string_view id);

// Parses a JSON object with the profile fields; unknown keys are an error
// naming the key, wrong types name the field. Returns kInvalidArgument for
// malformed JSON, an unknown key or a bad field.
HWREC_EXPORT Result<HardwareProfile> ParseHardwareProfile(std::string_view json);

// The profile as a JSON object (all nine fields, absent ones as null).
HWREC_EXPORT std::string HardwareProfileToJson(const HardwareProfile& profile);

}  // namespace hwrec
