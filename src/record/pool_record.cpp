#include "record/pool_record.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <variant>

#include "base/json_fields.h"
#include "hardware/node_pool_rules.h"
#include "record/runner_translation.h"

namespace hwrec {

namespace internal {

namespace {

PoolRecord HwrecPool(const std::string& json) {
  PoolRecord record;
  record.error = ReadNodePoolJson(json, &record.pool);
  return record;
}

}  // namespace

PoolRecord ReadPoolRecord(const std::string& line, RecordForm form) {
  if (form == RecordForm::kHwrec) return HwrecPool(line);
  auto parsed = ParseJsonRecord(line);
  if (auto* error = std::get_if<RecordError>(&parsed)) {
    PoolRecord record;
    record.error = *error;
    return record;
  }
  const nlohmann::json& object = std::get<nlohmann::json>(parsed);
  if (form == RecordForm::kAuto && !IsRunnerPool(object)) return HwrecPool(line);
  RunnerTranslation runner = TranslateRunnerPool(object);
  PoolRecord record;
  if (!runner.errors.empty()) {  // translation errors already carry the Runner's names
    record.error = runner.errors.front();
    record.runner = std::move(runner.names);
    return record;
  }
  record = HwrecPool(runner.hwrec.dump());
  record.runner = std::move(runner.names);
  record.warnings = std::move(runner.unknown);
  if (record.error) record.error = record.Named(*record.error);
  return record;
}

}  // namespace internal

Result<NodePool> ParseNodePoolRecord(std::string_view json, RecordForm form) {
  internal::PoolRecord record = internal::ReadPoolRecord(std::string(json), form);
  if (record.error) {
    return Status::InvalidArgument(
        fmt::format("node pool: {} {}", record.error->field, record.error->reason));
  }
  return std::move(record.pool);
}

Result<NodePool> ParseRunnerNodePoolJson(std::string_view json) {
  return ParseNodePoolRecord(json, RecordForm::kRunner);
}

}  // namespace hwrec
