// ObservationToJson (hwrec/observation.h): the JSON form walks the field list
// of record/observation_fields.h, as the content hash does.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "hwrec/observation.h"
#include "record/observation_fields.h"

namespace hwrec {

namespace {

template <typename T>
void Put(nlohmann::ordered_json& object, const char* key, const T& value) {
  object[key] = value;
}

void Put(nlohmann::ordered_json& object, const char* key, ExecutionStatus status) {
  object[key] = std::string(ToString(status));
}

template <typename T>
void Put(nlohmann::ordered_json& object, const char* key, const std::optional<T>& value) {
  if (value.has_value()) object[key] = *value;
}

// The object a JSON path's last part goes in ("hardware.gpu_count": the
// "hardware" object, made on first use), and that part.
std::pair<nlohmann::ordered_json*, std::string> Slot(nlohmann::ordered_json& root,
                                                     std::string_view path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string_view::npos) return {&root, std::string(path)};
  return {&root[std::string(path.substr(0, dot))], std::string(path.substr(dot + 1))};
}

}  // namespace

std::string ObservationToJson(const Observation& o) {
  nlohmann::ordered_json object;
  internal::VisitObservationFields(o, [&](const char* path, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (internal::IsOptionalField<Field>::value) {
      if (!field.has_value()) return;  // an absent field, and an empty group, are left out
    }
    auto [parent, key] = Slot(object, path);
    Put(*parent, key.c_str(), field);
  });
  // A NaN from C++ prints as null; invalid UTF-8 is replaced rather than thrown.
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hwrec
