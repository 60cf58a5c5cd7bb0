// The Runner's RunnerNodePool as hwrec's pool object (docs/RUNNER.md).
#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string_view>

#include "base/json_fields.h"
#include "record/runner_records.h"
#include "record/runner_translation.h"

namespace hwrec::internal {

namespace {

using Json = nlohmann::json;

// ---- RunnerNodePool ---------------------------------------------------------

const std::initializer_list<std::string_view> kPoolFields = {"id",
                                                             "name",
                                                             "site_id",
                                                             "cpu",
                                                             "memory",
                                                             "gpu",
                                                             "architecture",
                                                             "gpu_mode",
                                                             "gpu_num_total",
                                                             "gpu_brand",
                                                             "gpu_model",
                                                             "instance_type",
                                                             "maximum_time_in_sec"};

}  // namespace

bool IsRunnerPool(const Json& object) {
  return object.is_object() && object.contains("id") && !object.contains("node_pool_id");
}

RunnerTranslation TranslateRunnerPool(const Json& object) {
  RunnerTranslation t;
  // A field this build does not know is the Runner's own business: a warning
  // naming the closest known field, never a refused pool.
  t.unknown = JsonFields(object).UnknownFields(kPoolFields);
  Copy(object, "id", "node_pool_id", &t);
  Copy(object, "name", "name", &t);
  Copy(object, "site_id", "site_id", &t);
  CoresToMillicores(object, "", "cpu", "cpu_millicores", true, &t);
  Whole(object, "", "memory", "bytes", true, "memory_bytes", &t);
  Whole(object, "", "gpu", "GPUs", false, "gpu_count", &t);
  Copy(object, "architecture", "architecture", &t);
  Copy(object, "gpu_mode", "gpu_mode", &t);
  Whole(object, "", "gpu_num_total", "GPUs", false, "gpu_total", &t);
  Copy(object, "gpu_brand", "gpu_brand", &t);
  Copy(object, "gpu_model", "gpu_model", &t);
  Copy(object, "instance_type", "instance_type", &t);
  // Checked so that a bad value is caught, but not kept: hwrec does not limit time.
  std::optional<double> seconds;
  if (auto error = ReadNumber(object, "", "maximum_time_in_sec", "seconds", &seconds)) {
    t.errors.push_back(std::move(*error));
  }
  return t;
}

}  // namespace hwrec::internal
