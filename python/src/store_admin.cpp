// The store's upkeep from Python, as the CLI's admin commands do it: the
// router's configuration, the store's GPU catalog, the quarantine, the hp:v1 ->
// hp:v2 migration of legacy history, checks, copies and the schema.
#include <pybind11/stl.h>

#include <sstream>

#include "binding.h"
#include "hwrec/catalog.h"
#include "hwrec/check.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/node_pool.h"
#include "hwrec/refresh.h"
#include "hwrec/router_config.h"
#include "hwrec/store_copy.h"
#include "lines_input.h"

namespace hwrec::python {

namespace {

using PyStoreClass = py::class_<PyStore, std::shared_ptr<PyStore>>;

// Runs `fn(store)` with the store claimed and the GIL released.
template <typename Fn>
auto Claimed(PyStore& s, Fn&& fn) {
  Claim claim(s);
  py::gil_scoped_release release;
  return fn(claim.store());
}

// The whole text of a path, a file object, or (for a dict) its JSON.
std::string TextOf(const py::handle& input, const char* what, bool takes_dict) {
  if (takes_dict && py::isinstance<py::dict>(input)) return ToJson(input, what);
  if (py::isinstance<py::str>(input) || py::hasattr(input, "__fspath__") ||
      py::hasattr(input, "read")) {
    const LinesInput lines = ReadLines(input, what);
    if (lines.path.empty()) return lines.text;
    Result<std::string> text = WithLines(lines, [](std::istream& in) -> Result<std::string> {
      std::ostringstream out;
      out << in.rdbuf();
      return out.str();
    });
    return Unwrap(std::move(text));
  }
  throw py::type_error(std::string(what) + (takes_dict
                                                ? ": expected a dict, a path or a file object"
                                                : ": expected a path or a file object"));
}

QuarantineFilter FilterOf(const std::optional<std::vector<std::int64_t>>& ids,
                          const std::optional<std::string>& site,
                          const std::optional<std::string>& node_pool,
                          const std::optional<std::string>& gpu_name,
                          const std::optional<std::string>& reason) {
  QuarantineFilter filter;
  if (ids) filter.ids = *ids;
  filter.site_id = site;
  filter.node_pool_id = node_pool;
  filter.node_pool_gpu = gpu_name;
  filter.reason_code = reason;
  return filter;
}

// Node pools as register_pools takes them, parsed for the legacy migration.
std::vector<NodePool> PoolsOf(const py::object& pools) {
  std::vector<NodePool> out;
  if (pools.is_none()) return out;
  const LinesInput input = ReadLines(pools, "pools");
  Result<std::vector<NodePool>> parsed =
      WithLines(input, [](std::istream& in) -> Result<std::vector<NodePool>> {
        std::vector<NodePool> read;
        std::string line;
        for (int number = 1; std::getline(in, line); ++number) {
          if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
          Result<NodePool> pool = ParseNodePoolJson(line);
          if (!pool.ok()) {
            return Status::InvalidArgument("pools: line " + std::to_string(number) + ": " +
                                           pool.status().message());
          }
          read.push_back(std::move(pool).value());
        }
        return read;
      });
  return Unwrap(std::move(parsed));
}

void DefineRouterConfig(PyStoreClass& cls) {
  cls.def(
         "router_config",
         [](PyStore& s) {
           Result<RouterConfig> config =
               Claimed(s, [](Store& store) { return LoadRouterConfig(store); });
           return py::module_::import("json").attr("loads")(
               RouterConfigToJson(Unwrap(std::move(config))));
         },
         "The router's configuration (`hwrec route config show --format json`): machine "
         "types, quotas, lanes, RunPod, intents and settings, as the dict "
         "import_router_config takes.")
      .def(
          "import_router_config",
          [](PyStore& s, const py::object& config) {
            const std::string text = TextOf(config, "config", true);
            Check(Claimed(s, [&](Store& store) { return ImportRouterConfig(store, text); }));
          },
          py::arg("config"),
          "Merges entries by key (`hwrec route config import`): a dict, or a path or file of "
          "that JSON; an entry with \"remove\": true deletes its key. The whole result is "
          "validated, or nothing is written.")
      .def(
          "set_router_setting",
          [](PyStore& s, const std::string& key, const py::object& value) {
            const std::string text = ConfigValueText(value, "value");
            Check(Claimed(s, [&](Store& store) { return SetRouterSetting(store, key, text); }));
          },
          py::arg("key"), py::arg("value"),
          "One router setting (`hwrec route config set`): short_job_max_hours, "
          "flex_start_max_hours or gcp_daily_attempt_cap.");
}

void DefineCatalog(PyStoreClass& cls) {
  cls.def(
         "catalog",
         [](PyStore& s, const std::string& search) {
           Result<GpuCatalog> catalog =
               Claimed(s, [](Store& store) { return GpuCatalog::Load(store); });
           return Unwrap(std::move(catalog)).Search(search);
         },
         py::arg("search") = "",
         "The store's GPU catalog, with the cards imported into it (`hwrec catalog list "
         "STORE`): partitions matching every word of `search`.")
      .def(
          "import_catalog",
          [](PyStore& s, const py::object& csv) {
            const std::string text = TextOf(csv, "csv", false);
            Result<CatalogImportSummary> summary = Claimed(s, [&](Store& store) {
              s.evaluator.reset();  // under the claim: placement reads the catalog afresh
              std::istringstream in(text);
              return ImportCatalogCsv(store, in);
            });
            return Unwrap(std::move(summary));
          },
          py::arg("csv"),
          "Adds cards and MIG profiles from CSV (`hwrec catalog import`), a path or a file "
          "object, with the header brand,model,card_memory_gb,card_compute_slices,mode,"
          "memory_gb,compute_slices (GiB). Bad rows are rejects; the others are added in one "
          "transaction.");
}

void DefineQuarantine(PyStoreClass& cls) {
  cls.def(
         "quarantine",
         [](PyStore& s, const std::optional<std::vector<std::int64_t>>& ids,
            const std::optional<std::string>& site, const std::optional<std::string>& node_pool,
            const std::optional<std::string>& gpu_name, const std::optional<std::string>& reason) {
           const QuarantineFilter filter = FilterOf(ids, site, node_pool, gpu_name, reason);
           Result<std::vector<QuarantinedRow>> rows =
               Claimed(s, [&](Store& store) { return ListQuarantine(store, filter); });
           return Unwrap(std::move(rows));
         },
         py::kw_only(), py::arg("ids") = py::none(), py::arg("site") = py::none(),
         py::arg("node_pool") = py::none(), py::arg("gpu_name") = py::none(),
         py::arg("reason") = py::none(),
         "Legacy rows the hp:v2 migration held back (`hwrec quarantine list`), each with "
         "its reason; every given criterion must match.")
      .def(
          "resolve_quarantine",
          [](PyStore& s, const std::optional<std::vector<std::int64_t>>& ids,
             const std::optional<std::string>& site, const std::optional<std::string>& node_pool,
             const std::optional<std::string>& gpu_name, const std::optional<std::string>& reason,
             bool all, const std::optional<std::string>& gpu_model,
             const std::optional<std::string>& gpu_brand) {
            QuarantineResolveOptions options;
            options.filter = FilterOf(ids, site, node_pool, gpu_name, reason);
            options.all = all;
            options.gpu_brand = gpu_brand;
            options.gpu_model = gpu_model;
            Result<QuarantineResolveSummary> summary =
                Claimed(s, [&](Store& store) { return ResolveQuarantine(store, options); });
            return Unwrap(std::move(summary));
          },
          py::kw_only(), py::arg("ids") = py::none(), py::arg("site") = py::none(),
          py::arg("node_pool") = py::none(), py::arg("gpu_name") = py::none(),
          py::arg("reason") = py::none(), py::arg("all").noconvert() = false,
          py::arg("gpu_model") = py::none(), py::arg("gpu_brand") = py::none(),
          "Attaches the catalog model `gpu_model` to the selected rows and moves them into "
          "observations (`hwrec quarantine resolve`); `unknown` releases rows of GPU pools "
          "with no recorded model into the unknown-model population. Name the rows, or pass "
          "all=True.");
}

void DefineLegacy(PyStoreClass& cls) {
  cls.def(
         "plan_legacy_migration",
         [](PyStore& s, const py::object& pools) {
           const std::vector<NodePool> given = PoolsOf(pools);
           Result<LegacyPlan> plan =
               Claimed(s, [&](Store& store) { return PlanLegacyMigration(store, given); });
           return Unwrap(std::move(plan));
         },
         py::arg("pools") = py::none(),
         "What migrate_legacy would do, per site and node pool (`hwrec migrate --dry-run`); "
         "reads only. `pools`: node pools as register_pools takes them, to resolve rows with.")
      .def(
          "migrate_legacy",
          [](PyStore& s, bool accept_hp_v2, bool backup, const py::object& pools) {
            LegacyMigrationOptions options;
            options.accept_hp_v2 = accept_hp_v2;
            options.backup = backup;
            options.pools = PoolsOf(pools);
            Result<LegacyMigrationReport> report = Claimed(s, [&](Store& store) {
              s.evaluator.reset();
              s.query.reset();
              return MigrateStore(store, options);
            });
            return Unwrap(std::move(report));
          },
          py::kw_only(), py::arg("accept_hp_v2").noconvert() = false,
          py::arg("backup").noconvert() = true, py::arg("pools") = py::none(),
          "Applies pending migrations and re-keys legacy site-keyed history by hardware "
          "(`hwrec migrate --accept-hp-v2`): with legacy rows it needs accept_hp_v2=True "
          "(SchemaMismatchError says what it does otherwise), after a backup unless "
          "backup=False, all in one transaction.");
}

void DefineWholeStore(PyStoreClass& cls) {
  cls.def(
         "schema",
         [](PyStore& s) {
           Result<std::string> schema = Claimed(s, [](Store& store) { return store.DumpSchema(); });
           return Unwrap(std::move(schema));
         },
         "The store's full schema as SQL (`hwrec schema STORE`).")
      .def(
          "copy_to",
          [](PyStore& s, PyStore& destination) {
            if (&s == &destination) {
              ThrowStatus(Status::InvalidArgument(
                  "destination: is this store: give another store, a fresh Store.init(...)"));
            }
            Claim source_claim(s);
            Claim destination_claim(destination);
            Result<CopySummary> summary = [&] {
              py::gil_scoped_release release;
              destination.evaluator.reset();
              destination.query.reset();
              return CopyStore(source_claim.store(), destination_claim.store());
            }();
            return Unwrap(std::move(summary));
          },
          py::arg("destination"),
          "Copies every row into `destination`, an empty store (a fresh Store.init) of either "
          "engine, in one transaction of it, counts and aggregates checked before it commits "
          "(`hwrec copy`); on failure the destination is unchanged.");
}

}  // namespace

void DefineAdminMethods(PyStoreClass& cls) {
  DefineRouterConfig(cls);
  DefineCatalog(cls);
  DefineQuarantine(cls);
  DefineLegacy(cls);
  DefineWholeStore(cls);
}

void RegisterAdminFunctions(py::module_& m) {
  m.def(
      "check",
      [](const py::object& path) {
        const std::string location = FsPath(path);
        Result<StoreCheckReport> report = [&] {
          py::gil_scoped_release release;
          return CheckStore(location);
        }();
        return Unwrap(std::move(report));
      },
      py::arg("path"),
      "Checks the store at `path` without changing it (`hwrec check`): integrity, foreign "
      "keys, schema, aggregates against a rebuild, recommendations. A damaged store is a "
      "report whose sound is False; an error only when the checks cannot run.");
  m.def(
      "schema",
      []() {
        StoreOptions options;
        options.create_if_missing = true;
        Result<std::string> schema = [&]() -> Result<std::string> {
          py::gil_scoped_release release;
          Result<std::unique_ptr<Store>> store = Store::Open(":memory:", options);
          if (!store.ok()) return store.status();
          return (*store)->DumpSchema();
        }();
        return Unwrap(std::move(schema));
      },
      "The full schema of a fresh store as SQL (`hwrec schema`: what schema/schema.sql holds).");
}

}  // namespace hwrec::python
