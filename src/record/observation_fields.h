// The Observation's fields, listed once, in the order of its JSON form and of
// its content hash (ingest/observation_encoding.cpp): equality, the content
// hash and the JSON form all walk this list. A new field is added to both
// lists below, at the end of its group, and nowhere else among those three.
// The order is part of the content hash: never reorder it. Fields after
// kContentKeyV1Fields were added later: the content hash takes each only
// when present, so that a record without them hashes as it always did.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "hwrec/observation.h"

namespace hwrec::internal {

// Each field's JSON path, in the order of ObservationFields.
inline constexpr const char* kObservationFieldPaths[] = {"execution_id",
                                                         "action_image",
                                                         "finished_at",
                                                         "site_id",
                                                         "node_pool_id",
                                                         "status",
                                                         "duration_s",
                                                         "hardware.instance_type",
                                                         "hardware.architecture",
                                                         "hardware.cpu_millicores",
                                                         "hardware.memory_bytes",
                                                         "hardware.gpu_count",
                                                         "hardware.gpu_mode",
                                                         "hardware.gpu_total",
                                                         "hardware.gpu_brand",
                                                         "hardware.gpu_model",
                                                         "hardware_profile_id",
                                                         "gpu_compute_fraction",
                                                         "gpu_utilization",
                                                         "gpu_memory_peak_gb",
                                                         "cpu_millicores_avg",
                                                         "cpu_millicores_p95",
                                                         "cpu_millicores_max",
                                                         "memory_peak_bytes",
                                                         "requested.cpu_millicores",
                                                         "requested.memory_bytes",
                                                         "requested.gpu_memory_gb",
                                                         "requested.gpu_compute_fraction",
                                                         "gpu_count_held"};

// How many of the fields above the first content hash had.
inline constexpr std::size_t kContentKeyV1Fields = 28;

// References to every field of `o` (an Observation, const or not), in the
// order of kObservationFieldPaths.
template <typename O>
auto ObservationFields(O& o) {
  auto& h = o.hardware;
  auto& r = o.requested;
  return std::tie(o.execution_id, o.action_image, o.finished_at, o.site_id, o.node_pool_id,
                  o.status, o.duration_s, h.instance_type, h.architecture, h.cpu_millicores,
                  h.memory_bytes, h.gpu_count, h.gpu_mode, h.gpu_total, h.gpu_brand, h.gpu_model,
                  o.hardware_profile_id, o.gpu_compute_fraction, o.gpu_utilization,
                  o.gpu_memory_peak_gb, o.cpu_millicores_avg, o.cpu_millicores_p95,
                  o.cpu_millicores_max, o.memory_peak_bytes, r.cpu_millicores, r.memory_bytes,
                  r.gpu_memory_gb, r.gpu_compute_fraction, o.gpu_count_held);
}

// The names of one level of the JSON form, in order: the top level's (with
// "hardware" and "requested" for the groups) when `group` is "", else the
// fields of that group ("instance_type", …).
inline std::vector<std::string_view> ObservationFieldNames(std::string_view group) {
  std::vector<std::string_view> names;
  for (std::string_view path : kObservationFieldPaths) {
    const std::size_t dot = path.find('.');
    std::string_view name = path;
    if (group.empty()) {
      name = path.substr(0, dot);
    } else if (dot == std::string_view::npos || path.substr(0, dot) != group) {
      continue;
    } else {
      name = path.substr(dot + 1);
    }
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  return names;
}

// Whether a field visited is optional (an absent value, or an empty group).
template <typename T>
struct IsOptionalField : std::false_type {};
template <typename T>
struct IsOptionalField<std::optional<T>> : std::true_type {};

// Calls `v(path, field)` for each field of `o`, in order.
template <typename O, typename V>
void VisitObservationFields(O& o, V&& v) {
  auto fields = ObservationFields(o);
  static_assert(std::tuple_size_v<decltype(fields)> == std::size(kObservationFieldPaths),
                "every field has one path");
  std::size_t i = 0;
  std::apply([&](auto&... field) { (v(kObservationFieldPaths[i++], field), ...); }, fields);
}

}  // namespace hwrec::internal
