// Parsing of the evaluator's inputs: declared resources (or a retry floor) and
// the candidates file.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <string_view>
#include <unordered_set>
#include <utility>
#include <variant>

#include "base/json_fields.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "placement/candidate.h"

namespace hwrec {

namespace {

using internal::JsonFields;
using internal::Sign;

Status FieldStatus(const std::string& what, const RecordError& error) {
  return Status::InvalidArgument(fmt::format("{}: {} {}", what, error.field, error.reason));
}

std::optional<RecordError> ReadPinned(const JsonFields& fields, std::vector<std::string>* out) {
  const nlohmann::json* pinned = fields.Get("pinned");
  if (pinned == nullptr) return std::nullopt;
  if (!pinned->is_array()) {
    return RecordError{"pinned", "must be an array of field names, e.g. [\"memory_bytes\"]"};
  }
  for (const nlohmann::json& name : *pinned) {
    if (!name.is_string()) return RecordError{"pinned", "must hold field names as strings"};
    out->push_back(name.get<std::string>());
  }
  return std::nullopt;
}

std::optional<RecordError> CheckFraction(const std::optional<double>& fraction) {
  if (fraction && *fraction > 1) {
    return RecordError{"gpu_compute_fraction",
                       fmt::format("is {}: it is a share of one card, in (0, 1]", *fraction)};
  }
  return std::nullopt;
}

std::variant<DeclaredResources, RecordError> ReadDeclared(const nlohmann::json& object) {
  JsonFields fields(object);
  DeclaredResources d;
  std::optional<RecordError> error =
      fields.RejectUnknown({"gpu_count", "gpu_brand", "gpu_model", "architecture", "gpu_memory_gb",
                            "gpu_compute_fraction", "cpu_millicores", "memory_bytes", "pinned"});
  if (!error) error = fields.Int64("gpu_count", &d.gpu_count);
  if (!error) error = fields.String("gpu_brand", &d.gpu_brand);
  if (!error) error = fields.String("gpu_model", &d.gpu_model);
  if (!error) error = fields.String("architecture", &d.architecture);
  if (!error) error = fields.Double("gpu_memory_gb", &d.gpu_memory_gb, Sign::kPositive);
  if (!error)
    error = fields.Double("gpu_compute_fraction", &d.gpu_compute_fraction, Sign::kPositive);
  if (!error) error = CheckFraction(d.gpu_compute_fraction);
  if (!error) error = fields.Int64("cpu_millicores", &d.cpu_millicores, Sign::kPositive);
  if (!error) error = fields.Int64("memory_bytes", &d.memory_bytes, Sign::kPositive);
  if (!error) error = ReadPinned(fields, &d.pinned);
  if (error) return *error;
  return d;
}

std::optional<RecordError> ReadShares(const JsonFields& fields, std::vector<double>* out) {
  const nlohmann::json* shares = fields.Get("free_gpu_shares");
  if (shares == nullptr) return std::nullopt;
  const RecordError bad{"free_gpu_shares",
                        "must be an array of each GPU's free share of itself, in [0, 1], e.g. "
                        "[1, 0.4]"};
  if (!shares->is_array()) return bad;
  for (const nlohmann::json& share : *shares) {
    if (!share.is_number()) return bad;
    out->push_back(share.get<double>());
  }
  return std::nullopt;
}

std::variant<PlacementCandidate, RecordError> ReadCandidate(const nlohmann::json& object) {
  if (!object.is_object()) return RecordError{"", "must be an object with node_pool_id"};
  JsonFields fields(object);
  PlacementCandidate c;
  std::optional<std::string> id;
  std::optional<RecordError> error =
      fields.RejectUnknown({"node_pool_id", "free_partitions", "free_cpu_millicores",
                            "free_memory_bytes", "free_gpu_shares"});
  if (!error) error = fields.Required("node_pool_id");
  if (!error) error = fields.String("node_pool_id", &id);
  if (!error) error = fields.Int64("free_partitions", &c.free_partitions);
  if (!error) error = fields.Int64("free_cpu_millicores", &c.free_cpu_millicores);
  if (!error) error = fields.Int64("free_memory_bytes", &c.free_memory_bytes);
  if (!error) error = ReadShares(fields, &c.free_gpu_shares);
  if (error) return *error;
  c.node_pool_id = *id;
  return c;
}

}  // namespace

Result<DeclaredResources> ParseDeclaredResources(const std::string& json, const std::string& what) {
  auto parsed = internal::ParseJsonRecord(json);
  if (auto* error = std::get_if<RecordError>(&parsed)) return FieldStatus(what, *error);
  auto declared = ReadDeclared(std::get<nlohmann::json>(parsed));
  if (auto* error = std::get_if<RecordError>(&declared)) return FieldStatus(what, *error);
  return std::get<DeclaredResources>(std::move(declared));
}

Result<std::vector<PlacementCandidate>> ParsePlacementCandidates(const std::string& json) {
  const auto parsed = nlohmann::json::parse(json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_array()) {
    return Status::InvalidArgument(
        "candidates: expected a JSON array of {\"node_pool_id\": \"...\", \"free_partitions\": n, "
        "\"free_cpu_millicores\": n, \"free_memory_bytes\": n}");
  }
  std::vector<PlacementCandidate> out;
  out.reserve(parsed.size());
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    auto candidate = ReadCandidate(parsed[i]);
    if (auto* error = std::get_if<RecordError>(&candidate)) {
      return Status::InvalidArgument(
          fmt::format("candidate {}: {} {}", i + 1, error->field, error->reason));
    }
    out.push_back(std::get<PlacementCandidate>(std::move(candidate)));
  }
  if (Status checked = CheckPlacementCandidates(out); !checked.ok()) return checked;
  return out;
}

Status internal::CheckCandidateFields(std::size_t i, const PlacementCandidate& c) {
  if (c.node_pool_id.empty()) {
    return Status::InvalidArgument(
        fmt::format("candidate {}: node_pool_id is empty: give the pool's id", i + 1));
  }
  const std::pair<const char*, const std::optional<std::int64_t>*> free[] = {
      {"free_partitions", &c.free_partitions},
      {"free_cpu_millicores", &c.free_cpu_millicores},
      {"free_memory_bytes", &c.free_memory_bytes}};
  for (const auto& [name, value] : free) {
    if (*value && **value < 0) {
      return Status::InvalidArgument(
          fmt::format("candidate {}: {} is {}: send 0 or more, or leave it out when unknown", i + 1,
                      name, **value));
    }
  }
  for (std::size_t card = 0; card < c.free_gpu_shares.size(); ++card) {
    const double share = c.free_gpu_shares[card];
    if (!(share >= 0 && share <= 1)) {
      return Status::InvalidArgument(
          fmt::format("candidate {}: free_gpu_shares[{}] is {}: each GPU's free share of itself "
                      "is in [0, 1]",
                      i + 1, card, share));
    }
  }
  return Status::Ok();
}

Status internal::CandidateListedTwice(std::size_t i, const std::string& node_pool_id) {
  return Status::InvalidArgument(fmt::format(
      "candidate {}: node_pool_id '{}' is listed twice: list each pool once", i + 1, node_pool_id));
}

Status CheckPlacementCandidates(const std::vector<PlacementCandidate>& candidates) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (Status fields = internal::CheckCandidateFields(i, candidates[i]); !fields.ok()) {
      return fields;
    }
    if (!seen.insert(candidates[i].node_pool_id).second) {
      return internal::CandidateListedTwice(i, candidates[i].node_pool_id);
    }
  }
  return Status::Ok();
}

}  // namespace hwrec
