// The GPU catalog: what the store ships, search, spelling suggestions, CSV
// import, and the `hwrec catalog` commands.
#include "hwrec/catalog.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hwrec/store.h"
#include "store/database.h"
#include "test_support.h"

namespace hwrec {
namespace {

GpuCatalog LoadOrFail(const Store& store) {
  auto catalog = GpuCatalog::Load(store);
  INFO(catalog.status().ToString());
  REQUIRE(catalog.ok());
  return *catalog;
}

GpuCatalog ShippedCatalog() {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "shipped.db"));
  return LoadOrFail(*store);
}

std::set<std::string> Ids(const std::vector<GpuPartition>& partitions) {
  std::set<std::string> ids;
  for (const GpuPartition& p : partitions) ids.insert(p.gpu_config_id);
  return ids;
}

std::vector<std::string> Modes(const GpuModel& model) {
  std::vector<std::string> modes;
  for (const GpuPartition& p : model.partitions) modes.push_back(p.mode);
  return modes;
}

CatalogImportSummary ImportOrFail(Store& store, const std::string& csv) {
  std::istringstream in(csv);
  auto summary = ImportCatalogCsv(store, in);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  return *summary;
}

constexpr const char* kHeader =
    "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n";

}  // namespace

TEST_CASE("catalog: the store ships every card and MIG profile of the design",
          "[catalog][engine]") {
  const GpuCatalog catalog = ShippedCatalog();
  struct Card {
    const char* model;
    int slices;
    std::vector<std::string> modes;  // full first, then by (slices, memory)
  };
  const std::vector<std::string> a100_80 = {"full",        "mig-1g.10gb", "mig-1g.20gb",
                                            "mig-2g.20gb", "mig-3g.40gb", "mig-4g.40gb",
                                            "mig-7g.80gb"};
  const std::vector<Card> cards = {
      {"A100 40GB",
       7,
       {"full", "mig-1g.5gb", "mig-1g.10gb", "mig-2g.10gb", "mig-3g.20gb", "mig-4g.20gb",
        "mig-7g.40gb"}},
      {"A100 80GB", 7, a100_80},
      {"H100 80GB", 7, a100_80},
      {"H100 94GB",
       7,
       {"full", "mig-1g.12gb", "mig-1g.24gb", "mig-2g.24gb", "mig-3g.47gb", "mig-4g.47gb",
        "mig-7g.94gb"}},
      {"H200 141GB",
       7,
       {"full", "mig-1g.18gb", "mig-1g.35gb", "mig-2g.35gb", "mig-3g.71gb", "mig-4g.71gb",
        "mig-7g.141gb"}},
      {"A30", 4, {"full", "mig-1g.6gb", "mig-2g.12gb", "mig-4g.24gb"}},
      {"L4", 1, {"full"}},
      {"T4", 1, {"full"}},
      {"A10", 1, {"full"}},
      {"V100 16GB", 1, {"full"}},
      {"V100 32GB", 1, {"full"}},
  };
  for (const Card& card : cards) {
    INFO(card.model);
    const GpuModel* model = catalog.FindModel("NVIDIA", card.model);
    REQUIRE(model != nullptr);
    CHECK(model->compute_slices == card.slices);
    CHECK(Modes(*model) == card.modes);
    for (const GpuPartition& p : model->partitions) {
      INFO(p.mode);
      CHECK(p.compute_fraction == Approx(double(p.compute_slices) / card.slices));
      CHECK(p.gpu_config_id == GpuConfigId(p.brand, p.model, p.mode));
    }
  }
  CHECK(catalog.FindPartition("NVIDIA", "A30", "mig-2g.12gb")->compute_fraction == Approx(0.5));
  CHECK(catalog.FindPartition("NVIDIA", "A100 40GB", "mig-3g.20gb")->compute_fraction ==
        Approx(3.0 / 7));
  CHECK(catalog.FindPartition("NVIDIA", "A100 80GB", "full")->memory_gb == 80);
  CHECK(catalog.FindPartition("NVIDIA", "A100 80GB", "mig-3g.20gb") == nullptr);
}

TEST_CASE("catalog: models are sorted by brand and model", "[catalog][engine]") {
  const GpuCatalog catalog = ShippedCatalog();
  const auto& models = catalog.models();
  REQUIRE(models.size() >= 11);
  for (std::size_t i = 1; i < models.size(); ++i) {
    CHECK(std::tie(models[i - 1].brand, models[i - 1].model) <
          std::tie(models[i].brand, models[i].model));
  }
}

TEST_CASE("catalog: a gpu_config_id is the lowercase brand, model and mode joined by dashes",
          "[catalog]") {
  CHECK(GpuConfigId("NVIDIA", "A100 80GB", "mig-1g.10gb") == "nvidia-a100-80gb-mig-1g.10gb");
  CHECK(GpuConfigId("NVIDIA", "T4", "full") == "nvidia-t4-full");
  CHECK(GpuConfigId("NVIDIA", "RTX  6000\tAda", "full") == "nvidia-rtx-6000-ada-full");
}

TEST_CASE("catalog: models are found by their exact spelling, with or without a brand",
          "[catalog][engine]") {
  const GpuCatalog catalog = ShippedCatalog();
  REQUIRE(catalog.FindModelAnyBrand("H100 94GB") != nullptr);
  CHECK(catalog.FindModelAnyBrand("H100 94GB")->brand == "NVIDIA");
  CHECK(catalog.FindModel("NVIDIA", "a100 80gb") == nullptr);
  CHECK(catalog.FindModel("AMD", "A100 80GB") == nullptr);
  CHECK(catalog.FindModelAnyBrand("MI300X") == nullptr);
}

TEST_CASE("catalog: searching \"a100 1g\" finds exactly the A100 1g profiles",
          "[catalog][engine]") {
  const GpuCatalog catalog = ShippedCatalog();
  CHECK(Ids(catalog.Search("a100 1g")) ==
        std::set<std::string>{"nvidia-a100-40gb-mig-1g.5gb", "nvidia-a100-40gb-mig-1g.10gb",
                              "nvidia-a100-80gb-mig-1g.10gb", "nvidia-a100-80gb-mig-1g.20gb"});
}

TEST_CASE("catalog: search ignores case and needs every word to match", "[catalog][engine]") {
  const GpuCatalog catalog = ShippedCatalog();
  CHECK(Ids(catalog.Search("A100 1G")) == Ids(catalog.Search("a100 1g")));
  CHECK(Ids(catalog.Search("  NVIDIA   a30  ")) ==
        std::set<std::string>{"nvidia-a30-full", "nvidia-a30-mig-1g.6gb", "nvidia-a30-mig-2g.12gb",
                              "nvidia-a30-mig-4g.24gb"});
  const auto h100_94 = catalog.Search("h100 94");
  REQUIRE(h100_94.size() == 7);
  for (const GpuPartition& p : h100_94) CHECK(p.model == "H100 94GB");
  CHECK(catalog.Search("a30 7g").empty());
  std::size_t total = 0;
  for (const GpuModel& m : catalog.models()) total += m.partitions.size();
  CHECK(catalog.Search("").size() == total);
}

TEST_CASE("catalog: a misspelt model gets the closest catalog spellings", "[catalog][engine]") {
  const GpuCatalog catalog = ShippedCatalog();
  auto first = [&](const std::string& model) {
    const auto closest = catalog.ClosestModels(model);
    return closest.empty() ? std::string() : closest.front();
  };
  CHECK(first("a100 80g") == "A100 80GB");
  CHECK(first("A100-80GB") == "A100 80GB");
  CHECK(first("a30") == "A30");
  CHECK(first("Tesla T4") == "T4");
  const auto h100 = catalog.ClosestModels("H100");
  REQUIRE(h100.size() == 3);
  CHECK(std::set<std::string>(h100.begin(), h100.begin() + 2) ==
        std::set<std::string>{"H100 80GB", "H100 94GB"});
  const auto a100 = catalog.ClosestModels("A100", 2);
  CHECK(std::set<std::string>(a100.begin(), a100.end()) ==
        std::set<std::string>{"A100 40GB", "A100 80GB"});
}

TEST_CASE(
    "catalog: a named hardware key is read in catalog spellings, unknown as the unknown "
    "population",
    "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "keys.db"));
  auto resolve = [&](HardwareKey key) { return ResolveHardwareKey(*store, std::move(key)); };

  const auto l4 = resolve({std::nullopt, std::string("L4"), std::string("g2-standard-8"), false});
  REQUIRE(l4.ok());
  CHECK(l4->gpu_brand == std::optional<std::string>("NVIDIA"));
  CHECK(l4->gpu_model == std::optional<std::string>("L4"));
  CHECK(l4->instance_type == std::optional<std::string>("g2-standard-8"));

  const auto unknown =
      resolve({std::string("NVIDIA"), std::string("unknown"), std::nullopt, false});
  REQUIRE(unknown.ok());
  CHECK(*unknown == HardwareKey{std::string("NVIDIA"), std::nullopt, std::nullopt, false});

  const auto cpu = resolve({std::nullopt, std::nullopt, std::string("n2-standard-8"), true});
  REQUIRE(cpu.ok());
  CHECK(cpu->cpu_only);

  const auto misspelt = ResolveHardwareKey(
      *store, {std::nullopt, std::string("A100-80GB"), std::nullopt, false}, "--gpu-model");
  CHECK(misspelt.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(misspelt.status().message(),
             Catch::StartsWith("--gpu-model: GPU model 'A100-80GB' is not in the catalog") &&
                 Catch::Contains("did you mean A100 80GB"));

  const auto other_brand = resolve({std::string("AMD"), std::string("L4"), std::nullopt, false});
  CHECK_THAT(other_brand.status().message(),
             Catch::StartsWith("gpu_model: ") && Catch::Contains("under AMD"));

  const auto both = resolve({std::nullopt, std::string("L4"), std::nullopt, true});
  CHECK(both.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(both.status().message(), Catch::Contains("a CPU-only key names no GPU"));
  const auto cpu_unknown = resolve({std::nullopt, std::string("unknown"), std::nullopt, true});
  REQUIRE(cpu_unknown.ok());
  CHECK(*cpu_unknown == HardwareKey{std::nullopt, std::nullopt, std::nullopt, true});
}

TEST_CASE("catalog import: a new card is added with its full partition", "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const auto summary = ImportOrFail(*store, std::string(kHeader) +
                                                "NVIDIA,B200 180GB,180,7,mig-1g.23gb,23,1\n"
                                                "NVIDIA,B200 180GB,180,7,mig-3g.90gb,90,3\n");
  CHECK(summary.added == 3);
  CHECK(summary.unchanged == 0);
  CHECK(summary.errors.empty());

  const GpuCatalog catalog = LoadOrFail(*store);
  const GpuModel* b200 = catalog.FindModel("NVIDIA", "B200 180GB");
  REQUIRE(b200 != nullptr);
  CHECK(b200->memory_gb == 180);
  CHECK(b200->compute_slices == 7);
  CHECK(Modes(*b200) == std::vector<std::string>{"full", "mig-1g.23gb", "mig-3g.90gb"});
  CHECK(b200->partitions[0].memory_gb == 180);
  CHECK(b200->partitions[0].compute_fraction == 1.0);
  CHECK(b200->partitions[2].gpu_config_id == "nvidia-b200-180gb-mig-3g.90gb");
  CHECK(b200->partitions[2].compute_fraction == Approx(3.0 / 7));

  const auto source = store::ConnectionOf(*store).QueryText(
      "SELECT source FROM gpu_models WHERE model = 'B200 180GB'");
  CHECK(source == "import");
}

TEST_CASE("catalog import: bad rows are reported by line and field, good rows are kept",
          "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  std::ifstream csv(test::TestDataPath("catalog_extra.csv"));
  auto summary = ImportCatalogCsv(*store, csv);
  REQUIRE(summary.ok());
  CHECK(summary->added == 8);  // six B200 profiles, its full card, and the RTX 6000 Ada
  CHECK(summary->unchanged == 1);
  std::map<std::int64_t, std::string> fields;
  for (const auto& e : summary->errors) fields[e.line] = e.field;
  CHECK(fields ==
        std::map<std::int64_t, std::string>{
            {10, "card_memory_gb"}, {11, "memory_gb"}, {12, "compute_slices"}, {13, "brand"}});
  const GpuCatalog catalog = LoadOrFail(*store);
  CHECK(catalog.FindModel("NVIDIA", "B200 180GB")->partitions.size() == 7);
  CHECK(catalog.FindPartition("NVIDIA", "RTX 6000 Ada", "full") != nullptr);
  CHECK(catalog.FindPartition("NVIDIA", "B200 180GB", "mig-2g.90gb") == nullptr);
  CHECK(catalog.FindPartition("NVIDIA", "A100 80GB", "mig-1g.10gb")->memory_gb == 10);
}

TEST_CASE("catalog import: each row rule names the field it breaks", "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NVIDIA,,24,1,full,24,1", "model"},
      {"NVIDIA,X1,0,1,full,0,1", "card_memory_gb"},
      {"NVIDIA,X1,24,-4,full,24,-4", "card_compute_slices"},
      {"NVIDIA,X1,24,4,whole,24,4", "mode"},
      {"NVIDIA,X1,24,4,mig-2g,12,2", "mode"},
      {"NVIDIA,X1,24,4,mig-2g.12gb,12,abc", "compute_slices"},
      {"NVIDIA,X1,24,4,mig-8g.24gb,24,8", "compute_slices"},
      {"NVIDIA,X1,24,4,mig-1g.48gb,48,1", "memory_gb"},
      {"NVIDIA,X1,24,4,full,12,4", "memory_gb"},
      {"NVIDIA,X1,24,4,full,24,2", "compute_slices"},
      {"NVIDIA,A30,48,4,mig-1g.6gb,6,1", "card_memory_gb"},
      {"NVIDIA,A30,24,7,full,24,7", "card_compute_slices"},
      {"NVIDIA,A30,24,4,mig-1g.6gb,6", "row"},
      {"nvidia,a30,24,4,mig-1g.6gb,6,1", "model"},
      {"NVIDIA,A30,24,4,mig-1g.6GB,6,1", "mode"},
      {"NVIDIA,A30,24,4,mig-2g.12gb,12,1", "compute_slices"},
  };
  for (const auto& [row, field] : cases) {
    INFO(row);
    const auto summary = ImportOrFail(*store, std::string(kHeader) + row + "\n");
    REQUIRE(summary.errors.size() == 1);
    CHECK(summary.errors[0].line == 2);
    CHECK(summary.errors[0].field == field);
    CHECK(summary.added == 0);
  }
}

TEST_CASE("catalog import: a row that would change an existing partition is refused",
          "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const auto summary =
      ImportOrFail(*store, std::string(kHeader) + "NVIDIA,A100 40GB,40,7,mig-1g.5gb,6,1\n");
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].field == "memory_gb");
  CHECK_THAT(summary.errors[0].reason, Catch::Contains("never changes a partition"));
  CHECK(LoadOrFail(*store).FindPartition("NVIDIA", "A100 40GB", "mig-1g.5gb")->memory_gb == 5);
}

TEST_CASE("catalog import: importing the same rows again changes nothing", "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const std::string csv = std::string(kHeader) +
                          "NVIDIA,B200 180GB,180,7,full,180,7\n"
                          "NVIDIA,B200 180GB,180,7,mig-1g.23gb,23,1\n"
                          "NVIDIA,A30,24,4,mig-1g.6gb,6,1\n";
  const auto first = ImportOrFail(*store, csv);
  CHECK(first.added == 2);
  CHECK(first.unchanged == 1);
  const auto again = ImportOrFail(*store, csv);
  CHECK(again.added == 0);
  CHECK(again.unchanged == 3);
  CHECK(again.errors.empty());
}

TEST_CASE("catalog import: quoted fields and CRLF line ends follow RFC 4180", "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const auto summary = ImportOrFail(
      *store,
      "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\r\n"
      "\"NVIDIA\",\"RTX A6000, \"\"workstation\"\"\",48,1,full,48,1\r\n"
      "\r\n"
      "NVIDIA,\"bad\"x,48,1,full,48,1\r\n"
      "NVIDIA,\"Two\nLines\",8,1,full,8,1\r\n"
      "NVIDIA,L40S,48,1,full,48,1\r\n");
  CHECK(summary.added == 2);
  CHECK(summary.unchanged == 1);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].line == 4);
  CHECK(summary.errors[0].field == "row");
  const GpuCatalog catalog = LoadOrFail(*store);
  CHECK(catalog.FindModel("NVIDIA", "RTX A6000, \"workstation\"") != nullptr);
  CHECK(catalog.FindModel("NVIDIA", "Two\nLines") != nullptr);
}

TEST_CASE("catalog import: a file without the exact header is refused as a whole",
          "[catalog][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  for (const std::string csv : {"", "brand,model,memory_gb\nNVIDIA,X,1\n",
                                "model,brand,card_memory_gb,card_compute_slices,mode,memory_gb,"
                                "compute_slices\n"}) {
    std::istringstream in(csv);
    auto summary = ImportCatalogCsv(*store, in);
    REQUIRE_FALSE(summary.ok());
    CHECK(summary.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(summary.status().message(), Catch::Contains("brand,model,card_memory_gb"));
  }
}

TEST_CASE("catalog import: a read-only store is refused", "[catalog][engine]") {
  test::TempDir dir;
  const std::string location = test::NewStoreLocation(dir, "store.db");
  test::OpenStoreOrFail(location);
  StoreOptions options;
  options.read_only = true;
  auto store = test::OpenStoreOrFail(location, options);
  std::istringstream in(std::string(kHeader) + "NVIDIA,X1,8,1,full,8,1\n");
  auto summary = ImportCatalogCsv(*store, in);
  REQUIRE_FALSE(summary.ok());
  CHECK(LoadOrFail(*store).FindModel("NVIDIA", "X1") == nullptr);
}

TEST_CASE("catalog cli: list --search prints the matching partitions", "[catalog][cli]") {
  const auto result = test::RunCli("catalog list --search 'a100 1g'");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("gpu_config_id") && Catch::Contains("compute_fraction"));
  CHECK_THAT(result.out, Catch::Contains("nvidia-a100-40gb-mig-1g.5gb") &&
                             Catch::Contains("nvidia-a100-80gb-mig-1g.20gb"));
  CHECK_THAT(result.out, !Catch::Contains("mig-2g") && !Catch::Contains("h100"));
}

TEST_CASE("catalog cli: list --format json prints every partition with its fields",
          "[catalog][cli]") {
  const auto result = test::RunCli("catalog list --format json");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto json = nlohmann::json::parse(result.out);
  REQUIRE(json.is_array());
  CHECK(json.size() == ShippedCatalog().Search("").size());
  bool found = false;
  for (const auto& p : json) {
    if (p["gpu_config_id"] != "nvidia-a30-mig-2g.12gb") continue;
    found = true;
    CHECK(p["brand"] == "NVIDIA");
    CHECK(p["model"] == "A30");
    CHECK(p["mode"] == "mig-2g.12gb");
    CHECK(p["memory_gb"] == 12.0);
    CHECK(p["compute_slices"] == 2);
    CHECK(p["compute_fraction"] == 0.5);
  }
  CHECK(found);
}

TEST_CASE("catalog cli: import exits 3 when rows were rejected and 0 when all were taken",
          "[catalog][cli]") {
  test::TempDir dir;
  const std::string store = dir.File("store.db");
  test::OpenStoreOrFail(store);
  const auto partial = test::RunCli("catalog import " + test::ShellQuote(store) + " " +
                                    test::ShellQuote(test::TestDataPath("catalog_extra.csv")));
  INFO(partial.out << partial.err);
  CHECK(partial.exit_code == 3);
  CHECK_THAT(partial.out, Catch::Contains("added 8, unchanged 1, rejected 4"));
  CHECK_THAT(partial.out, Catch::Contains("card_memory_gb"));

  test::WriteFile(dir.File("ok.csv"), std::string(kHeader) + "NVIDIA,L20,48,1,full,48,1\n");
  const auto ok = test::RunCli("catalog import " + test::ShellQuote(store) + " " +
                               test::ShellQuote(dir.File("ok.csv")) + " --format json");
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(nlohmann::json::parse(ok.out)["added"] == 1);
  const auto listed = test::RunCli("catalog list " + test::ShellQuote(store) + " --search l20");
  CHECK_THAT(listed.out, Catch::Contains("nvidia-l20-full"));
}

TEST_CASE("catalog cli: a missing or unknown subcommand is a usage error", "[catalog][cli]") {
  for (const std::string args : {"catalog", "catalog frobnicate"}) {
    const auto result = test::RunCli(args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("list") && Catch::Contains("import"));
  }
  CHECK(test::RunCli("catalog list --help").exit_code == 0);
  CHECK(test::RunCli("catalog import --help").exit_code == 0);
  CHECK(test::RunCli("catalog --help").exit_code == 0);
  CHECK(test::RunCli("catalog import only-a-store.db").exit_code == 2);
  CHECK(test::RunCli("catalog list --format xml").exit_code == 2);
}

}  // namespace hwrec

namespace hwrec::catalog_docs_test {

TEST_CASE("catalog: docs/CLI.md's CSV example imports as it says", "[catalog][docs]") {
  const std::string doc = hwrec::test::ReadFile(hwrec::test::SourcePath("docs/CLI.md"));
  const std::size_t begin = doc.find("```csv\n");
  REQUIRE(begin != std::string::npos);
  const std::size_t end = doc.find("```", begin + 7);
  std::istringstream csv(doc.substr(begin + 7, end - begin - 7));
  auto store = hwrec::test::OpenStoreOrFail(":memory:");
  auto imported = ImportCatalogCsv(*store, csv);
  REQUIRE(imported.ok());
  CHECK(imported->errors.empty());
  CHECK(imported->added == 2);
  auto catalog = GpuCatalog::Load(*store);
  REQUIRE(catalog.ok());
  CHECK(catalog->FindPartition("Acme", "Z9 96GB", "mig-1g.24gb") != nullptr);
}

}  // namespace hwrec::catalog_docs_test
