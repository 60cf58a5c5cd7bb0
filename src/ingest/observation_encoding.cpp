#include "ingest/observation_encoding.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>

#include "record/observation_fields.h"

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

void Append(ExecutionStatus status, std::string* out) {
  Append(static_cast<std::int64_t>(status), out);
}

}  // namespace

void AppendContentKey(const Observation& o, std::string* out) {
  out->append(kContentKeyVersion);
  std::size_t index = 0;
  VisitObservationFields(o, [&](const char* path, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if (index++ < kContentKeyV1Fields) return Append(field, out);
    // A field added since: only when present, tagged with its path, so that
    // the records stored before it keep their hash.
    if constexpr (IsOptionalField<Field>::value) {
      if (!field.has_value()) return;
    }
    Append(std::string(path), out);
    Append(field, out);
  });
}

Sha256Digest ContentHash(const Observation& observation, std::string* scratch) {
  scratch->clear();
  AppendContentKey(observation, scratch);
  return Sha256(*scratch);
}

}  // namespace hwrec::internal
