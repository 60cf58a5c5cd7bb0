#include "hwrec/remedy.h"

#include <fmt/format.h>

#include <atomic>

namespace hwrec {

namespace {

std::atomic<RemedyHost> g_host{RemedyHost::kCli};

struct Words {
  std::string_view name;
  // {0} is the store; a remedy that names none leaves it out.
  std::string_view cli;
  std::string_view python;
  std::string_view cpp;
};

// One row per Remedy, in its order.
constexpr Words kWords[] = {
    {"init", "hwrec init {0}", "hwrec.Store.init({1})",
     "hwrec::Store::Open({2}, options with create_if_missing)"},
    {"status_writable", "hwrec status {0}", "hwrec.Store({1})", "hwrec::Store::Open({2})"},
    {"migrate", "hwrec migrate {0}", "Store.migrate()", "hwrec::Store::Migrate()"},
    {"migrate_dry_run", "hwrec migrate {0} --dry-run", "Store.plan_legacy_migration()",
     "hwrec::PlanLegacyMigration(store)"},
    {"migrate_accept", "hwrec migrate {0} --accept-hp-v2",
     "Store.migrate_legacy(accept_hp_v2=True)",
     "hwrec::MigrateStore(store, options with accept_hp_v2)"},
    {"migrate_with_pools", "hwrec migrate {0} --pools FILE",
     "Store.migrate_legacy(accept_hp_v2=True, pools=...)",
     "hwrec::MigrateStore(store, options with pools)"},
    {"check", "hwrec check {0}", "hwrec.check({1})", "hwrec::CheckStore({2})"},
    {"refresh", "hwrec refresh {0}", "Store.refresh()", "hwrec::RefreshRecommendations(store)"},
    {"refresh_rebuild", "hwrec refresh {0} --rebuild", "Store.refresh(rebuild=True)",
     "hwrec::RebuildRecommendations(store)"},
    {"copy", "hwrec copy", "Store.copy_to(destination)", "hwrec::CopyStore(source, destination)"},
    {"config_list", "hwrec config list {0}", "Store.config()", "hwrec::ListConfig(store)"},
    {"pools_import", "hwrec pools import {0}", "Store.register_pools(pools)",
     "hwrec::ImportNodePools(store, jsonl)"},
    {"catalog_list", "hwrec catalog list {0}", "Store.catalog()", "hwrec::GpuCatalog::Load(store)"},
    {"catalog_import", "hwrec catalog import {0}", "Store.import_catalog(csv)",
     "hwrec::ImportCatalogCsv(store, csv)"},
    {"quarantine_list", "hwrec quarantine list {0}", "Store.quarantine()",
     "hwrec::ListQuarantine(store)"},
    {"quarantine_resolve", "hwrec quarantine resolve {0} --gpu-model MODEL",
     "Store.resolve_quarantine(gpu_model=...)", "hwrec::ResolveQuarantine(store, options)"},
    {"route_config_import", "hwrec route config import {0}", "Store.import_router_config(config)",
     "hwrec::ImportRouterConfig(store, json)"},
    {"hardware_id", "hwrec hardware-id", "hwrec.hardware_profile_id(profile)",
     "hwrec::HardwareProfileId(profile)"},
};

static_assert(sizeof(kWords) / sizeof(kWords[0]) == sizeof(kRemedies) / sizeof(kRemedies[0]),
              "a row of words for every remedy");

const Words& WordsOf(Remedy remedy) { return kWords[static_cast<int>(remedy)]; }

// "'path'" with backslashes and quotes escaped, as Python writes a str.
std::string PythonText(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

void SetRemedyHost(RemedyHost host) { g_host.store(host); }

RemedyHost CurrentRemedyHost() { return g_host.load(); }

std::string RemedyText(Remedy remedy, RemedyHost host, std::string_view store) {
  const Words& words = WordsOf(remedy);
  const std::string_view pattern = host == RemedyHost::kCli      ? words.cli
                                   : host == RemedyHost::kPython ? words.python
                                                                 : words.cpp;
  if (store.empty()) {
    // Without a store, the command alone: `hwrec migrate --dry-run`.
    std::string shown(pattern);
    if (const auto at = shown.find(" {0}"); at != std::string::npos) shown.erase(at, 4);
    return "`" + fmt::format(fmt::runtime(shown), "", "path", "path") + "`";
  }
  return "`" +
         fmt::format(fmt::runtime(pattern), store, PythonText(store),
                     fmt::format("\"{}\"", store)) +
         "`";
}

std::string RemedyText(Remedy remedy, std::string_view store) {
  return RemedyText(remedy, CurrentRemedyHost(), store);
}

std::string_view ToString(Remedy remedy) { return WordsOf(remedy).name; }

}  // namespace hwrec
