// Validation and writing of the router configuration, and its settings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "base/text.h"
#include "hwrec/remedy.h"
#include "router/router_internal.h"

namespace hwrec::internal {

namespace {

bool IsName(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                    c == '.' || (c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return true;
}

std::string CardList(const CardSet& cards) {
  std::vector<std::string> names;
  for (const auto& card : cards) names.push_back(card.first + " " + card.second);
  return JoinOr(names);
}

Status CheckCard(const std::string& where, const std::string& brand, const std::string& model,
                 const CardSet& cards) {
  if (cards.count({brand, model}) != 0) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("{}: GPU '{} {}' is not in the catalog: use one of {} or add it with {}", where,
                  brand, model, CardList(cards), RemedyText(Remedy::kCatalogImport)));
}

Status CheckMachine(const GcpMachineType& m, const RouterConfig& config, const CardSet& cards) {
  const std::string where = fmt::format("gcp_machines '{}'", m.machine_type);
  if (!IsName(m.machine_type)) {
    return Status::InvalidArgument(
        "gcp_machines: machine_type must be a GCP machine type name such as a2-ultragpu-8g");
  }
  if (Status s = CheckCard(where, m.gpu_brand, m.gpu_model, cards); !s.ok()) return s;
  if (m.gpu_count < 1 || m.vcpus < 1 || !(m.memory_gb > 0)) {
    return Status::InvalidArgument(
        fmt::format("{}: gpu_count and vcpus must be at least 1 and memory_gb positive", where));
  }
  if (!m.allows_spot && !m.allows_flex_start && !m.allows_standard) {
    return Status::InvalidArgument(
        fmt::format("{}: allows no provisioning model: set allows_spot, allows_flex_start or "
                    "allows_standard",
                    where));
  }
  const bool needs_on_demand = m.allows_standard;
  const bool needs_preemptible = m.allows_spot || m.allows_flex_start;
  for (auto [needed, quota_class] : {std::pair{needs_on_demand, QuotaClass::kOnDemand},
                                     std::pair{needs_preemptible, QuotaClass::kPreemptible}}) {
    if (needed && config.FindQuota(m.gpu_model, quota_class) == nullptr) {
      return Status::InvalidArgument(
          fmt::format("{}: no {} quota for {}: add one to quotas (gpus 0 if none is granted)",
                      where, ToString(quota_class), m.gpu_model));
    }
  }
  return Status::Ok();
}

Status CheckQuotasAndLanes(const RouterConfig& config, const CardSet& cards) {
  std::set<std::pair<std::string, QuotaClass>> quota_keys;
  for (const GpuQuota& q : config.quotas) {
    const std::string where = fmt::format("quotas '{}/{}'", q.gpu_model, ToString(q.quota_class));
    if (!quota_keys.emplace(q.gpu_model, q.quota_class).second) {
      return Status::InvalidArgument(fmt::format("{}: listed twice: keep one", where));
    }
    if (q.gpus < 0) return Status::InvalidArgument(where + ": gpus must be 0 or more");
    if (q.metric.empty()) {
      return Status::InvalidArgument(where + ": metric is empty: give GCP's quota metric name");
    }
  }
  std::set<std::string> lane_names;
  std::set<int> positions;
  for (const SlurmLane& l : config.lanes) {
    const std::string where = fmt::format("slurm_lanes '{}'", l.lane);
    if (!IsName(l.lane)) {
      return Status::InvalidArgument(
          "slurm_lanes: lane must be a name of letters, digits, '-', '_' or '.'");
    }
    if (!lane_names.insert(l.lane).second || !positions.insert(l.position).second) {
      return Status::InvalidArgument(fmt::format(
          "{}: lane name or position {} is used twice: make both unique", where, l.position));
    }
    if (l.partition.empty()) return Status::InvalidArgument(where + ": partition is empty");
    if (l.max_gpus < 1) return Status::InvalidArgument(where + ": max_gpus must be at least 1");
    if (Status s = CheckCard(where, l.gpu_brand, l.gpu_model, cards); !s.ok()) return s;
  }
  const RunPodRung& r = config.runpod;
  if (!IsName(r.name) || r.gpu_type.empty() || r.max_gpus < 1) {
    return Status::InvalidArgument(
        "runpod: needs a name (letters, digits, '-', '_', '.'), a gpu_type and max_gpus >= 1");
  }
  return CheckCard("runpod", r.gpu_brand, r.gpu_model, cards);
}

Status CheckIntents(const RouterConfig& config) {
  std::set<std::string> names;
  std::vector<std::string> single_gpu;
  int widest = 1;  // a width-1 rung is always there (the legacy chain)
  for (const GcpMachineType& m : config.machines) {
    if (m.gpu_count == 1) single_gpu.push_back(m.machine_type);
    widest = std::max(widest, m.gpu_count);
  }
  for (const Intent& i : config.intents) {
    const std::string where = fmt::format("intents '{}'", i.intent);
    if (!IsName(i.intent)) {
      return Status::InvalidArgument(
          "intents: intent must be a name of letters, digits, '-', '_' or '.'");
    }
    if (!names.insert(i.intent).second) {
      return Status::InvalidArgument(where + ": listed twice: keep one");
    }
    if (i.workload_image.empty()) {
      return Status::InvalidArgument(where + ": workload_image is empty: give the image");
    }
    const GcpMachineType* legacy = config.FindMachine(i.legacy_machine);
    if (legacy == nullptr || legacy->gpu_count != 1) {
      return Status::InvalidArgument(
          fmt::format("{}: legacy_machine '{}' is not a single-GPU GCP machine type: use {}", where,
                      i.legacy_machine, JoinOr(single_gpu)));
    }
    if (i.min_width < 1) return Status::InvalidArgument(where + ": min_width must be at least 1");
    if (i.min_width > widest) {
      return Status::InvalidArgument(
          fmt::format("{}: min_width is {}, wider than any machine type in gcp_machines (the "
                      "widest has {} GPUs): use {} or less, or add a wider machine type",
                      where, i.min_width, widest, widest));
    }
  }
  return Status::Ok();
}

Status CheckSettings(const RouterSettings& s) {
  if (!(s.short_job_max_hours > 0) || !(s.flex_start_max_hours > 0) ||
      s.short_job_max_hours > s.flex_start_max_hours) {
    return Status::InvalidArgument(
        "settings: short_job_max_hours and flex_start_max_hours must be positive, "
        "short_job_max_hours at most flex_start_max_hours");
  }
  if (s.gcp_daily_attempt_cap < 0) {
    return Status::InvalidArgument("settings: gcp_daily_attempt_cap must be 0 or more");
  }
  return Status::Ok();
}

}  // namespace

Status CheckRouterConfig(const RouterConfig& config, const CardSet& cards) {
  if (Status s = CheckSettings(config.settings); !s.ok()) return s;
  if (Status s = CheckQuotasAndLanes(config, cards); !s.ok()) return s;
  std::set<std::string> machine_names;
  for (const GcpMachineType& m : config.machines) {
    if (!machine_names.insert(m.machine_type).second) {
      return Status::InvalidArgument(
          fmt::format("gcp_machines '{}': listed twice: keep one", m.machine_type));
    }
    if (Status s = CheckMachine(m, config, cards); !s.ok()) return s;
  }
  return CheckIntents(config);
}

const std::vector<SettingInfo>& SettingInfos() {
  static const std::vector<SettingInfo> kInfos = {
      {"short_job_max_hours", "jobs shorter than this lead with SPOT; longer ones with FLEX_START"},
      {"flex_start_max_hours", "longest run FLEX_START allows (7 days); longer jobs skip it"},
      {"gcp_daily_attempt_cap",
       "dispatches per UTC day that may try GCP (a whole walk counts once)"},
  };
  return kInfos;
}

std::string SettingValue(const RouterSettings& settings, std::string_view key) {
  if (key == "short_job_max_hours") return fmt::format("{}", settings.short_job_max_hours);
  if (key == "flex_start_max_hours") return fmt::format("{}", settings.flex_start_max_hours);
  if (key == "gcp_daily_attempt_cap") return std::to_string(settings.gcp_daily_attempt_cap);
  return "";
}

Status ApplySetting(RouterSettings* settings, std::string_view key, std::string_view value) {
  const std::string text(Trim(value));
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  const bool numeric = !text.empty() && end != nullptr && *end == '\0' && std::isfinite(number);
  if (key == "short_job_max_hours" || key == "flex_start_max_hours") {
    if (!numeric || !(number > 0)) {
      return Status::InvalidArgument(
          fmt::format("{} '{}' is not a positive number of hours: use e.g. 6", key, value));
    }
    (key == "short_job_max_hours" ? settings->short_job_max_hours
                                  : settings->flex_start_max_hours) = number;
    return Status::Ok();
  }
  if (key == "gcp_daily_attempt_cap") {
    if (!numeric || number < 0 || number != std::floor(number) || number > 1e9) {
      return Status::InvalidArgument(fmt::format(
          "gcp_daily_attempt_cap '{}' is not a whole number of dispatches: use e.g. 20", value));
    }
    settings->gcp_daily_attempt_cap = static_cast<int>(number);
    return Status::Ok();
  }
  return Status::InvalidArgument(
      fmt::format("unknown router setting '{}': use short_job_max_hours, flex_start_max_hours or "
                  "gcp_daily_attempt_cap",
                  key));
}

}  // namespace hwrec::internal
