#include "ingest/observation_encoding.h"

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace hwrec::internal {

namespace {

constexpr char kContentKeyVersion[] = "hwrec-observation-1";

void AppendUint64(std::uint64_t value, std::string* out) {
  char bytes[8];
  for (std::size_t i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>((value >> (8 * i)) & 0xffU);  // little-endian everywhere
  }
  out->append(bytes, sizeof bytes);
}

void Append(std::int64_t value, std::string* out) {
  AppendUint64(static_cast<std::uint64_t>(value), out);
}

void Append(double value, std::string* out) {
  if (value == 0) value = 0;  // -0.0 and 0.0 are the same measurement
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  AppendUint64(bits, out);
}

void Append(const std::string& value, std::string* out) {
  AppendUint64(value.size(), out);
  out->append(value);
}

template <typename T>
void Append(const std::optional<T>& value, std::string* out) {
  out->push_back(value.has_value() ? '\1' : '\0');
  if (value.has_value()) Append(*value, out);
}

void AppendHardware(const HardwareProfile& h, std::string* out) {
  Append(h.instance_type, out);
  Append(h.architecture, out);
  Append(h.cpu_millicores, out);
  Append(h.memory_bytes, out);
  Append(h.gpu_count, out);
  Append(h.gpu_mode, out);
  Append(h.gpu_total, out);
  Append(h.gpu_brand, out);
  Append(h.gpu_model, out);
}

template <typename T>
void Put(nlohmann::ordered_json& object, const char* key, const std::optional<T>& value) {
  if (value.has_value()) object[key] = *value;
}

nlohmann::ordered_json HardwareJson(const HardwareProfile& h) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  Put(object, "instance_type", h.instance_type);
  Put(object, "architecture", h.architecture);
  Put(object, "cpu_millicores", h.cpu_millicores);
  Put(object, "memory_bytes", h.memory_bytes);
  Put(object, "gpu_count", h.gpu_count);
  Put(object, "gpu_mode", h.gpu_mode);
  Put(object, "gpu_total", h.gpu_total);
  Put(object, "gpu_brand", h.gpu_brand);
  Put(object, "gpu_model", h.gpu_model);
  return object;
}

nlohmann::ordered_json RequestedJson(const RequestedResources& r) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  Put(object, "cpu_millicores", r.cpu_millicores);
  Put(object, "memory_bytes", r.memory_bytes);
  Put(object, "gpu_memory_gb", r.gpu_memory_gb);
  Put(object, "gpu_compute_fraction", r.gpu_compute_fraction);
  return object;
}

}  // namespace

void AppendContentKey(const Observation& o, std::string* out) {
  out->append(kContentKeyVersion);
  Append(o.execution_id, out);
  Append(o.action_image, out);
  Append(o.finished_at, out);
  Append(o.site_id, out);
  Append(o.node_pool_id, out);
  Append(static_cast<std::int64_t>(o.status), out);
  Append(o.duration_s, out);
  AppendHardware(o.hardware, out);
  Append(o.hardware_profile_id, out);
  Append(o.gpu_compute_fraction, out);
  Append(o.gpu_utilization, out);
  Append(o.gpu_memory_peak_gb, out);
  Append(o.cpu_millicores_avg, out);
  Append(o.cpu_millicores_p95, out);
  Append(o.cpu_millicores_max, out);
  Append(o.memory_peak_bytes, out);
  Append(o.requested.cpu_millicores, out);
  Append(o.requested.memory_bytes, out);
  Append(o.requested.gpu_memory_gb, out);
  Append(o.requested.gpu_compute_fraction, out);
}

Sha256Digest ContentHash(const Observation& observation, std::string* scratch) {
  scratch->clear();
  AppendContentKey(observation, scratch);
  return Sha256(*scratch);
}

std::string ObservationToJson(const Observation& o) {
  nlohmann::ordered_json object;
  object["execution_id"] = o.execution_id;
  object["action_image"] = o.action_image;
  object["finished_at"] = o.finished_at;
  Put(object, "site_id", o.site_id);
  Put(object, "node_pool_id", o.node_pool_id);
  object["status"] = std::string(ToString(o.status));
  Put(object, "duration_s", o.duration_s);
  if (auto hardware = HardwareJson(o.hardware); !hardware.empty()) object["hardware"] = hardware;
  Put(object, "hardware_profile_id", o.hardware_profile_id);
  Put(object, "gpu_compute_fraction", o.gpu_compute_fraction);
  Put(object, "gpu_utilization", o.gpu_utilization);
  Put(object, "gpu_memory_peak_gb", o.gpu_memory_peak_gb);
  Put(object, "cpu_millicores_avg", o.cpu_millicores_avg);
  Put(object, "cpu_millicores_p95", o.cpu_millicores_p95);
  Put(object, "cpu_millicores_max", o.cpu_millicores_max);
  Put(object, "memory_peak_bytes", o.memory_peak_bytes);
  if (auto requested = RequestedJson(o.requested); !requested.empty()) {
    object["requested"] = requested;
  }
  // A NaN from C++ prints as null; invalid UTF-8 is replaced rather than thrown.
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hwrec::internal
