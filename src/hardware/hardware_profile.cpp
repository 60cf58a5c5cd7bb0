#include "hwrec/hardware_profile.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/sha256.h"
#include "hardware/gpu_mode.h"

namespace hwrec {

namespace {

constexpr std::size_t kIdHexDigits = 16;

template <typename T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value.has_value() ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json CanonicalArray(const HardwareProfile& p, ProfileIdVersion version) {
  nlohmann::json array = nlohmann::json::array();
  array.push_back(version == ProfileIdVersion::kV1 ? "hp:v1" : "hp:v2");
  array.push_back(OrNull(p.instance_type));
  array.push_back(OrNull(p.architecture));
  array.push_back(OrNull(p.cpu_millicores));
  array.push_back(OrNull(p.memory_bytes));
  array.push_back(OrNull(p.gpu_count));
  array.push_back(OrNull(p.gpu_mode));
  array.push_back(OrNull(p.gpu_total));
  if (version == ProfileIdVersion::kV2) {
    array.push_back(OrNull(p.gpu_brand));
    array.push_back(OrNull(p.gpu_model));
  }
  return array;
}

}  // namespace

bool HardwareProfile::operator==(const HardwareProfile& o) const {
  return instance_type == o.instance_type && architecture == o.architecture &&
         cpu_millicores == o.cpu_millicores && memory_bytes == o.memory_bytes &&
         gpu_count == o.gpu_count && gpu_mode == o.gpu_mode && gpu_total == o.gpu_total &&
         gpu_brand == o.gpu_brand && gpu_model == o.gpu_model;
}

Result<std::string> CanonicalProfile(const HardwareProfile& profile, ProfileIdVersion version) {
  try {
    // Compact, RFC 8259 escapes, UTF-8 kept as is; invalid UTF-8 throws.
    return CanonicalArray(profile, version)
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  } catch (const nlohmann::json::type_error&) {
    return Status::InvalidArgument(
        "hardware profile has a string that is not valid UTF-8: send UTF-8 text");
  }
}

Result<std::string> HardwareProfileId(const HardwareProfile& profile, ProfileIdVersion version) {
  auto canonical = CanonicalProfile(profile, version);
  if (!canonical.ok()) return canonical.status();
  const std::string hex = internal::Sha256Hex(*canonical);
  return fmt::format("hp:v{}:{}", static_cast<int>(version), hex.substr(0, kIdHexDigits));
}

std::optional<ProfileIdVersion> ProfileIdVersionOf(std::string_view id) {
  auto well_formed = [&](std::string_view prefix) {
    if (id.substr(0, prefix.size()) != prefix || id.size() != prefix.size() + kIdHexDigits) {
      return false;
    }
    for (char c : id.substr(prefix.size())) {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
  };
  if (well_formed("hp:v1:")) return ProfileIdVersion::kV1;
  if (well_formed("hp:v2:")) return ProfileIdVersion::kV2;
  return std::nullopt;
}

Result<HardwareProfile> ParseHardwareProfile(std::string_view json) {
  auto parsed = internal::ParseJsonRecord(json);
  if (auto* error = std::get_if<RecordError>(&parsed)) {
    if (error->field == "json") {
      return Status::InvalidArgument(fmt::format("profile: {}", error->reason));
    }
    return Status::InvalidArgument(fmt::format("profile: {} {}", error->field, error->reason));
  }
  const auto& object = std::get<nlohmann::json>(parsed);
  internal::JsonFields fields(object);
  HardwareProfile p;
  std::optional<RecordError> error;
  if (!error) {
    error = fields.RejectUnknown({"instance_type", "architecture", "cpu_millicores", "memory_bytes",
                                  "gpu_count", "gpu_mode", "gpu_total", "gpu_brand", "gpu_model"});
  }
  if (!error) error = fields.String("instance_type", &p.instance_type, true);
  if (!error) error = fields.String("architecture", &p.architecture, true);
  if (!error) error = fields.Int64("cpu_millicores", &p.cpu_millicores);
  if (!error) error = fields.Int64("memory_bytes", &p.memory_bytes);
  if (!error) error = fields.Int64("gpu_count", &p.gpu_count);
  if (!error) error = fields.String("gpu_mode", &p.gpu_mode, true);
  if (!error) error = fields.Int64("gpu_total", &p.gpu_total);
  if (!error) error = fields.String("gpu_brand", &p.gpu_brand, true);
  if (!error) error = fields.String("gpu_model", &p.gpu_model, true);
  if (error) return Status::InvalidArgument(fmt::format("{} {}", error->field, error->reason));
  if (p.gpu_mode && !internal::IsGpuModeSyntax(*p.gpu_mode)) {
    return Status::InvalidArgument(
        fmt::format("gpu_mode is '{}': use full or mig-<profile>, e.g. mig-1g.10gb", *p.gpu_mode));
  }
  if (p == HardwareProfile{}) {
    return Status::InvalidArgument(
        "profile names none of its fields: give at least one of instance_type, architecture, "
        "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, gpu_brand and gpu_model");
  }
  return p;
}

std::string HardwareProfileToJson(const HardwareProfile& p) {
  nlohmann::ordered_json object;
  object["instance_type"] = OrNull(p.instance_type);
  object["architecture"] = OrNull(p.architecture);
  object["cpu_millicores"] = OrNull(p.cpu_millicores);
  object["memory_bytes"] = OrNull(p.memory_bytes);
  object["gpu_count"] = OrNull(p.gpu_count);
  object["gpu_mode"] = OrNull(p.gpu_mode);
  object["gpu_total"] = OrNull(p.gpu_total);
  object["gpu_brand"] = OrNull(p.gpu_brand);
  object["gpu_model"] = OrNull(p.gpu_model);
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hwrec
