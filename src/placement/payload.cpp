// The versioned JSON payload of an evaluation, "hwrec.placement/v1".
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>

#include "base/decimal.h"
#include "base/status_error.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"

namespace hwrec {

namespace {

// A payload that parses but does not hold a placement; the message says what.
[[noreturn]] void Refuse(const std::string& what) {
  throw internal::StatusError(Status::InvalidArgument("placement payload: " + what));
}

using Json = nlohmann::ordered_json;

constexpr const char* kSchema = "hwrec.placement/v1";

template <typename T>
Json OrNull(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

// A position: a whole number, 0 or more (a fraction, a negative or a huge
// number cast to one would be nonsense, or undefined).
std::size_t ReadPosition(const Json& value, const std::string& field) {
  constexpr double kExactDoubles = 9007199254740992.0;  // 2^53
  if (value.is_number_unsigned()) return value.get<std::size_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return static_cast<std::size_t>(value.get<std::int64_t>());
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d >= 0 && d < kExactDoubles && d == std::floor(d)) return static_cast<std::size_t>(d);
  }
  Refuse(fmt::format("{} is {}: it must be a whole number, 0 or more", field, value.dump()));
}

// A count or an amount: a whole number within 64 bits (a fraction or a float
// beyond them cast to one would be nonsense, or undefined).
std::int64_t ReadInteger(const Json& value, const std::string& field) {
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
      return value.get<std::int64_t>();
    }
  } else if (value.is_number_integer()) {
    return value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    if (internal::IsWholeInt64(d)) return static_cast<std::int64_t>(d);
  }
  Refuse(fmt::format("{} is {}: it must be a whole number within 64 bits", field, value.dump()));
}

std::int64_t ReadInteger(const Json& object, const char* key, const char* within) {
  return ReadInteger(object.at(key), fmt::format("{}.{}", within, key));
}

std::optional<std::int64_t> OptionalInteger(const Json& object, const char* key,
                                            const char* within) {
  const Json& value = object.at(key);
  if (value.is_null()) return std::nullopt;
  return ReadInteger(value, fmt::format("{}.{}", within, key));
}

template <typename T>
std::optional<T> Optional(const Json& object, const char* key) {
  const Json& value = object.at(key);
  if (value.is_null()) return std::nullopt;
  return value.get<T>();
}

Json RequestJson(const EffectiveRequest& r) {
  return Json{{"gpu_count", r.gpu_count},
              {"gpu_config_id", OrNull(r.gpu_config_id)},
              {"gpu_memory_gb", OrNull(r.gpu_memory_gb)},
              {"gpu_compute_fraction", OrNull(r.gpu_compute_fraction)},
              {"cpu_request_millicores", OrNull(r.cpu_request_millicores)},
              {"cpu_limit_millicores", OrNull(r.cpu_limit_millicores)},
              {"memory_bytes", OrNull(r.memory_bytes)}};
}

Json ProvenanceJson(const EffectiveRequest& r) {
  Json out = Json::object();
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    Json origin = {{"source", std::string(ToString(r.origins[f]))},
                   {"samples", r.origins[f].samples}};
    if (r.origins[f].held_share) origin["held_share"] = true;
    out[std::string(ToString(static_cast<FigureKind>(f)))] = std::move(origin);
  }
  return out;
}

Json ShapeJson(const ExecutionShape& shape) {
  return Json{{"gpu_count", shape.gpu_count},
              {"gpu_count_source", std::string(ToString(shape.gpu_count_source))},
              {"architectures", shape.architectures},
              {"architecture_source", std::string(ToString(shape.architecture_source))},
              {"history_executions", shape.history_executions},
              {"gpu_executions", shape.gpu_executions},
              {"notes", shape.notes}};
}

ShapeSource ReadShapeSource(const Json& shape, const char* key) {
  const auto name = shape.at(key).get<std::string>();
  const auto source = ParseShapeSource(name);
  if (!source) Refuse(fmt::format("shape {} '{}' is not known", key, name));
  return *source;
}

ExecutionShape ReadShape(const Json& j) {
  ExecutionShape shape;
  shape.gpu_count = ReadInteger(j, "gpu_count", "shape");
  shape.gpu_count_source = ReadShapeSource(j, "gpu_count_source");
  shape.architectures = j.at("architectures").get<std::vector<std::string>>();
  shape.architecture_source = ReadShapeSource(j, "architecture_source");
  shape.history_executions = ReadInteger(j, "history_executions", "shape");
  shape.gpu_executions = ReadInteger(j, "gpu_executions", "shape");
  // Absent in payloads written before the shape's notes were reported.
  if (j.contains("notes")) shape.notes = j.at("notes").get<std::vector<std::string>>();
  return shape;
}

Json EvaluationFieldsJson(const CandidateEvaluation& e);

// The fields written only when they hold something (payloads without them read as before).
void AddCardFields(const CandidateEvaluation& e, Json* out) {
  Json& waste = (*out)["waste"];
  if (e.waste.gpu_left) waste["gpu_left"] = *e.waste.gpu_left;
  if (e.waste.fragmentation) waste["fragmentation"] = *e.waste.fragmentation;
  if (!e.gpu_cards.empty()) (*out)["gpu_cards"] = e.gpu_cards;
}

Json EvaluationJson(const CandidateEvaluation& e) {
  Json out = EvaluationFieldsJson(e);
  AddCardFields(e, &out);
  return out;
}

void ReadCardFields(const Json& j, CandidateEvaluation* e) {
  const Json& waste = j.at("waste");
  if (waste.contains("gpu_left")) e->waste.gpu_left = Optional<double>(waste, "gpu_left");
  if (waste.contains("fragmentation")) {
    e->waste.fragmentation = Optional<double>(waste, "fragmentation");
  }
  if (!j.contains("gpu_cards")) return;
  const Json& cards = j.at("gpu_cards");
  if (!cards.is_array()) Refuse("gpu_cards must be an array of card positions");
  for (std::size_t i = 0; i < cards.size(); ++i) {
    e->gpu_cards.push_back(ReadPosition(cards[i], fmt::format("gpu_cards[{}]", i)));
  }
}

Json EvaluationFieldsJson(const CandidateEvaluation& e) {
  return Json{{"candidate", e.candidate},
              {"node_pool_id", e.node_pool_id},
              {"feasible", e.feasible},
              {"reason", e.reason},
              {"notes", e.notes},
              {"request", RequestJson(e.request)},
              {"needs",
               {{"gpu_memory_gb", OrNull(e.needs.gpu_memory_gb)},
                {"gpu_compute_fraction", OrNull(e.needs.gpu_compute_fraction)}}},
              {"waste",
               {{"card", OrNull(e.waste.card)},
                {"compute_shortfall", OrNull(e.waste.compute_shortfall)},
                {"shortfall_weight", e.waste.shortfall_weight},
                {"score", OrNull(e.waste.score)},
                {"cpu", e.waste.cpu},
                {"memory", e.waste.memory}}},
              {"provenance", ProvenanceJson(e.request)}};
}

EffectiveRequest ReadRequest(const Json& request, const Json& provenance) {
  EffectiveRequest r;
  r.gpu_count = ReadInteger(request, "gpu_count", "request");
  r.gpu_config_id = Optional<std::string>(request, "gpu_config_id");
  r.gpu_memory_gb = Optional<double>(request, "gpu_memory_gb");
  r.gpu_compute_fraction = Optional<double>(request, "gpu_compute_fraction");
  r.cpu_request_millicores = OptionalInteger(request, "cpu_request_millicores", "request");
  r.cpu_limit_millicores = OptionalInteger(request, "cpu_limit_millicores", "request");
  r.memory_bytes = OptionalInteger(request, "memory_bytes", "request");
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const Json& origin = provenance.at(std::string(ToString(static_cast<FigureKind>(f))));
    const auto name = origin.at("source").get<std::string>();
    auto parsed = ParseFigureOrigin(name, ReadInteger(origin, "samples", "provenance"));
    if (!parsed) Refuse("provenance source '" + name + "' is not known");
    r.origins[f] = *parsed;
    const auto held = origin.find("held_share");
    r.origins[f].held_share = held != origin.end() && *held == true;
  }
  return r;
}

CandidateEvaluation ReadEvaluation(const Json& j) {
  CandidateEvaluation e;
  e.candidate = ReadPosition(j.at("candidate"), "candidate");
  e.node_pool_id = j.at("node_pool_id").get<std::string>();
  e.feasible = j.at("feasible").get<bool>();
  e.reason = j.at("reason").get<std::string>();
  e.notes = j.at("notes").get<std::vector<std::string>>();
  e.request = ReadRequest(j.at("request"), j.at("provenance"));
  const Json& needs = j.at("needs");
  e.needs.gpu_memory_gb = Optional<double>(needs, "gpu_memory_gb");
  e.needs.gpu_compute_fraction = Optional<double>(needs, "gpu_compute_fraction");
  const Json& waste = j.at("waste");
  e.waste.card = Optional<double>(waste, "card");
  e.waste.compute_shortfall = Optional<double>(waste, "compute_shortfall");
  // Absent in payloads written before the score was: unknown.
  if (waste.contains("score")) e.waste.score = Optional<double>(waste, "score");
  if (waste.contains("shortfall_weight")) {
    e.waste.shortfall_weight = waste.at("shortfall_weight").get<double>();
  }
  e.waste.cpu = waste.at("cpu").get<double>();
  e.waste.memory = waste.at("memory").get<double>();
  ReadCardFields(j, &e);
  return e;
}

PlacementResult ReadResult(const Json& j) {
  PlacementResult result;
  result.workload = j.at("workload").get<std::string>();
  const auto policy = ParsePlacementPolicy(j.at("policy").get<std::string>());
  if (!policy) Refuse("policy must be best_fit, first_fit or fragmentation");
  result.policy = *policy;
  result.as_of = j.at("as_of").get<double>();
  // Absent in payloads written before the shape was reported.
  if (j.contains("shape")) result.shape = ReadShape(j.at("shape"));
  for (const Json& entry : j.at("candidates")) result.evaluations.push_back(ReadEvaluation(entry));
  const Json& chosen = j.at("chosen");
  if (!chosen.is_null()) {
    const auto id = chosen.at("node_pool_id").get<std::string>();
    if (result.evaluations.empty() || !result.evaluations.front().feasible ||
        result.evaluations.front().node_pool_id != id) {
      Refuse("chosen '" + id + "' is not the first, feasible candidate");
    }
    result.chosen = 0;
  }
  return result;
}

}  // namespace

std::string PlacementToJson(const PlacementResult& result, int indent) {
  Json candidates = Json::array();
  for (const CandidateEvaluation& e : result.evaluations) candidates.push_back(EvaluationJson(e));
  Json chosen = nullptr;
  if (const CandidateEvaluation* c = result.chosen_evaluation()) {
    chosen = {{"node_pool_id", c->node_pool_id}, {"request", RequestJson(c->request)}};
  }
  const Json out = {{"schema", kSchema},
                    {"workload", result.workload},
                    {"policy", std::string(ToString(result.policy))},
                    {"as_of", result.as_of},
                    {"shape", ShapeJson(result.shape)},
                    {"candidates", std::move(candidates)},
                    {"chosen", std::move(chosen)}};
  // The workload comes from the caller or the store: invalid UTF-8 is replaced, not fatal.
  return out.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Result<PlacementResult> ParsePlacementJson(const std::string& json) {
  const Json parsed = Json::parse(json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Status::InvalidArgument("placement payload: malformed JSON: expected one object");
  }
  const auto schema = parsed.find("schema");
  if (schema == parsed.end() || *schema != kSchema) {
    return Status::InvalidArgument(
        fmt::format("placement payload: schema is {}, this build reads \"{}\": upgrade hwrec",
                    schema == parsed.end() ? std::string("missing") : schema->dump(), kSchema));
  }
  try {
    return ReadResult(parsed);
  } catch (const internal::StatusError& e) {
    return e.status();
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(std::string("placement payload: ") + e.what());
  }
}

}  // namespace hwrec
