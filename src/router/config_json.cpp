// The router configuration as JSON: export, and import that merges entries by
// key into the stored configuration and validates the result as a whole.
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/status_error.h"
#include "hwrec/router_config.h"
#include "router/router_internal.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

// Named, not anonymous: a unity build puts this file beside others with
// helpers of the same names (Refuse, Json).
namespace router_config_json {

using Json = nlohmann::ordered_json;

// A document error; its message names the entry and field.
[[noreturn]] void Refuse(std::string message) {
  throw internal::StatusError(Status::InvalidArgument(std::move(message)));
}

Json MachineJson(const GcpMachineType& m) {
  Json provisioning = Json::array();
  for (Provisioning p : {Provisioning::kSpot, Provisioning::kFlexStart, Provisioning::kStandard}) {
    if (m.Allows(p)) provisioning.push_back(ToString(p));
  }
  return {{"machine_type", m.machine_type}, {"gpu_brand", m.gpu_brand}, {"gpu_model", m.gpu_model},
          {"gpu_count", m.gpu_count},       {"vcpus", m.vcpus},         {"memory_gb", m.memory_gb},
          {"provisioning", provisioning}};
}

Json ToJson(const RouterConfig& c) {
  Json out;
  out["settings"] = {{"short_job_max_hours", c.settings.short_job_max_hours},
                     {"flex_start_max_hours", c.settings.flex_start_max_hours},
                     {"gcp_daily_attempt_cap", c.settings.gcp_daily_attempt_cap}};
  out["gcp_machines"] = Json::array();
  for (const GcpMachineType& m : c.machines) out["gcp_machines"].push_back(MachineJson(m));
  out["quotas"] = Json::array();
  for (const GpuQuota& q : c.quotas) {
    out["quotas"].push_back({{"gpu_model", q.gpu_model},
                             {"class", ToString(q.quota_class)},
                             {"metric", q.metric},
                             {"gpus", q.gpus}});
  }
  out["slurm_lanes"] = Json::array();
  for (const SlurmLane& l : c.lanes) {
    out["slurm_lanes"].push_back({{"lane", l.lane},
                                  {"position", l.position},
                                  {"partition", l.partition},
                                  {"gpu_brand", l.gpu_brand},
                                  {"gpu_model", l.gpu_model},
                                  {"max_gpus", l.max_gpus}});
  }
  out["runpod"] = {{"name", c.runpod.name},
                   {"gpu_type", c.runpod.gpu_type},
                   {"gpu_brand", c.runpod.gpu_brand},
                   {"gpu_model", c.runpod.gpu_model},
                   {"max_gpus", c.runpod.max_gpus}};
  out["intents"] = Json::array();
  for (const Intent& i : c.intents) {
    out["intents"].push_back({{"intent", i.intent},
                              {"workload_image", i.workload_image},
                              {"legacy_machine", i.legacy_machine},
                              {"min_width", i.min_width}});
  }
  return out;
}

// Typed reads of one entry's fields (through the JSON field reader); `where`
// names the entry in errors.
class Entry {
 public:
  Entry(const Json& object, std::string where)
      : ordered_(object), object_(object), fields_(object_), where_(std::move(where)) {}

  const nlohmann::json& Field(const char* key) const {
    if (auto missing = fields_.Required(key)) {
      Refuse(fmt::format("{}: {} {}", where_, missing->field, missing->reason));
    }
    return *fields_.Get(key);
  }
  std::string String(const char* key) const {
    const nlohmann::json& v = Field(key);
    if (!v.is_string()) Refuse(fmt::format("{}: {} must be a string", where_, key));
    return v.get<std::string>();
  }
  int Int(const char* key) const {
    const nlohmann::json& v = Field(key);
    if (!v.is_number_integer()) {
      Refuse(fmt::format("{}: {} must be a whole number", where_, key));
    }
    // Read whole before narrowing: 4294967298 must not become 2.
    const bool fits = v.is_number_unsigned()
                          ? v.get<std::uint64_t>() <= std::numeric_limits<int>::max()
                          : v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                v.get<std::int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) {
      Refuse(fmt::format("{}: {} is {}: it must be a whole number between {} and {}", where_, key,
                         v.dump(), std::numeric_limits<int>::min(),
                         std::numeric_limits<int>::max()));
    }
    return v.get<int>();
  }
  // An optional whole number: `fallback` when the entry leaves it out.
  int IntOr(const char* key, int fallback) const {
    return fields_.Get(key) != nullptr ? Int(key) : fallback;
  }
  double Number(const char* key) const {
    const nlohmann::json& v = Field(key);
    if (!v.is_number()) Refuse(fmt::format("{}: {} must be a number", where_, key));
    return v.get<double>();
  }
  void OnlyKnown(std::initializer_list<const char*> known) const {
    for (auto it = ordered_.begin(); it != ordered_.end(); ++it) {
      bool found = it.key() == "remove";
      for (const char* k : known) found = found || it.key() == k;
      if (!found) {
        Refuse(fmt::format("{}: '{}' is not a known field: check its spelling", where_, it.key()));
      }
    }
  }

 private:
  const Json& ordered_;          // as sent: unknown fields are named in this order
  const nlohmann::json object_;  // the same, in the field reader's JSON type
  internal::JsonFields fields_;
  std::string where_;
};

GcpMachineType ParseMachine(const Entry& e) {
  e.OnlyKnown({"machine_type", "gpu_brand", "gpu_model", "gpu_count", "vcpus", "memory_gb",
               "provisioning"});
  GcpMachineType m;
  m.machine_type = e.String("machine_type");
  m.gpu_brand = e.String("gpu_brand");
  m.gpu_model = e.String("gpu_model");
  m.gpu_count = e.Int("gpu_count");
  m.vcpus = e.Int("vcpus");
  m.memory_gb = e.Number("memory_gb");
  const nlohmann::json& list = e.Field("provisioning");
  if (!list.is_array()) Refuse("gcp_machines: provisioning must be an array");
  m.allows_spot = m.allows_flex_start = m.allows_standard = false;
  for (const nlohmann::json& p : list) {
    const auto provisioning =
        internal::ParseProvisioning(p.is_string() ? p.get<std::string>() : "");
    if (provisioning == Provisioning::kSpot) {
      m.allows_spot = true;
    } else if (provisioning == Provisioning::kFlexStart) {
      m.allows_flex_start = true;
    } else if (provisioning == Provisioning::kStandard) {
      m.allows_standard = true;
    } else {
      Refuse(fmt::format(
          "gcp_machines '{}': provisioning '{}' is unknown: use SPOT, FLEX_START or STANDARD",
          m.machine_type, p.dump()));
    }
  }
  return m;
}

GpuQuota ParseQuota(const Entry& e) {
  e.OnlyKnown({"gpu_model", "class", "metric", "gpus"});
  GpuQuota q;
  q.gpu_model = e.String("gpu_model");
  const auto quota_class = internal::ParseQuotaClass(e.String("class"));
  if (!quota_class) {
    Refuse(fmt::format("quotas '{}': class '{}' is unknown: use on_demand or preemptible",
                       q.gpu_model, e.String("class")));
  }
  q.quota_class = *quota_class;
  q.metric = e.String("metric");
  q.gpus = e.Int("gpus");
  return q;
}

SlurmLane ParseLane(const Entry& e) {
  e.OnlyKnown({"lane", "position", "partition", "gpu_brand", "gpu_model", "max_gpus"});
  return SlurmLane{e.String("lane"),      e.Int("position"),     e.String("partition"),
                   e.String("gpu_brand"), e.String("gpu_model"), e.Int("max_gpus")};
}

RunPodRung ParseRunPod(const Entry& e) {
  e.OnlyKnown({"name", "gpu_type", "gpu_brand", "gpu_model", "max_gpus"});
  return RunPodRung{e.String("name"), e.String("gpu_type"), e.String("gpu_brand"),
                    e.String("gpu_model"), e.Int("max_gpus")};
}

Intent ParseIntent(const Entry& e) {
  e.OnlyKnown({"intent", "workload_image", "legacy_machine", "min_width"});
  // min_width 1 unless given: an intent that can run on one GPU.
  return Intent{e.String("intent"), e.String("workload_image"), e.String("legacy_machine"),
                e.IntOr("min_width", 1)};
}

// The key that identifies an entry of `section`, for matching on import.
std::string KeyOf(const std::string& section, const Json& entry) {
  auto text = [&](const char* k) {
    return entry.contains(k) && entry[k].is_string() ? entry[k].get<std::string>() : "";
  };
  if (section == "gcp_machines") return text("machine_type");
  if (section == "quotas") return text("gpu_model") + "/" + text("class");
  if (section == "slurm_lanes") return text("lane");
  return text("intent");
}

void MergeSection(Json& current, const Json& incoming, const std::string& section) {
  if (!incoming.is_array()) Refuse(section + " must be an array of objects");
  Json& entries = current[section];
  for (const Json& item : incoming) {
    if (!item.is_object()) Refuse(section + " must be an array of objects");
    const std::string key = KeyOf(section, item);
    auto found = std::find_if(entries.begin(), entries.end(),
                              [&](const Json& e) { return KeyOf(section, e) == key; });
    const bool remove = item.contains("remove") && item["remove"] == true;
    if (remove && found == entries.end()) {
      Refuse(fmt::format("{} '{}': cannot remove: there is no such entry", section, key));
    }
    if (remove) {
      entries.erase(found);
    } else if (found != entries.end()) {
      found->update(item);  // fields not given keep their value
    } else {
      entries.push_back(item);
    }
  }
}

template <typename T, typename Parse>
std::vector<T> ParseSection(const Json& doc, const char* section, Parse parse) {
  std::vector<T> out;
  for (const Json& item : doc[section]) {
    out.push_back(parse(Entry(item, fmt::format("{} '{}'", section, KeyOf(section, item)))));
  }
  return out;
}

RouterConfig FromJson(const Json& doc, const RouterSettings& old_settings) {
  RouterConfig config;
  config.settings = old_settings;
  for (auto it = doc["settings"].begin(); it != doc["settings"].end(); ++it) {
    const std::string value = it->is_string() ? it->get<std::string>() : it->dump();
    if (Status s = internal::ApplySetting(&config.settings, it.key(), value); !s.ok()) {
      Refuse("settings: " + s.message());
    }
  }
  config.machines = ParseSection<GcpMachineType>(doc, "gcp_machines", ParseMachine);
  config.quotas = ParseSection<GpuQuota>(doc, "quotas", ParseQuota);
  config.lanes = ParseSection<SlurmLane>(doc, "slurm_lanes", ParseLane);
  config.runpod = ParseRunPod(Entry(doc["runpod"], "runpod"));
  config.intents = ParseSection<Intent>(doc, "intents", ParseIntent);
  return config;
}

RouterConfig Merge(const RouterConfig& current, std::string_view json_text) {
  const Json incoming = Json::parse(json_text, nullptr, false);
  if (incoming.is_discarded() || !incoming.is_object()) {
    Refuse("the router configuration is not a JSON object: check its syntax");
  }
  Json doc = ToJson(current);
  for (auto it = incoming.begin(); it != incoming.end(); ++it) {
    const std::string& section = it.key();
    if (section == "settings" || section == "runpod") {
      if (!it->is_object()) Refuse(section + " must be an object");
      doc[section].update(*it);
    } else if (section == "gcp_machines" || section == "quotas" || section == "slurm_lanes" ||
               section == "intents") {
      MergeSection(doc, *it, section);
    } else {
      Refuse(fmt::format(
          "'{}' is not a section of the router configuration: use settings, gcp_machines, "
          "quotas, slurm_lanes, runpod or intents",
          section));
    }
  }
  return FromJson(doc, current.settings);
}

}  // namespace router_config_json

std::string RouterConfigToJson(const RouterConfig& config) {
  return router_config_json::ToJson(config).dump(
      2, ' ', false, router_config_json::Json::error_handler_t::replace);
}

Status ImportRouterConfig(Store& store, std::string_view json_text) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "import the router configuration", [&]() -> Status {
    return internal::ReplaceRouterConfig(store, [&](store::Connection& db) -> Result<RouterConfig> {
      try {
        return router_config_json::Merge(internal::ReadRouterConfig(db), json_text);
      } catch (const nlohmann::json::exception& e) {
        return Status::InvalidArgument(fmt::format("router configuration: {}", e.what()));
      }
    });
  });
}

}  // namespace hwrec
