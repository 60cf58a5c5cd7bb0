// hwrec hardware-id: the hp:v1 and hp:v2 ids of a hardware profile, with a
// missing GPU brand filled from the catalog exactly as ingest fills it.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/catalog.h"
#include "hwrec/hardware_profile.h"

namespace hwrec::cli {

namespace {

// The catalog of `store_path`, or the one that ships with hwrec when empty.
Result<GpuCatalog> LoadCatalog(const std::string& store_path) {
  StoreOptions options;
  options.read_only = !store_path.empty();
  options.create_if_missing = store_path.empty();
  auto store = Store::Open(store_path.empty() ? ":memory:" : store_path, options);
  if (!store.ok()) return store.status();
  return GpuCatalog::Load(**store);
}

}  // namespace

int RunHardwareId(const std::vector<std::string>& args) {
  po::options_description options("Options");
  std::string format_text;
  options.add_options()("profile", po::value<std::string>()->required(),
                        "the profile as a JSON object: instance_type, architecture, "
                        "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, "
                        "gpu_brand, gpu_model (absent fields are null)");
  options.add_options()("canonical", po::bool_switch(), "also print the canonical forms");
  options.add_options()("store", po::value<std::string>()->default_value(""),
                        "a store whose GPU catalog (with operator additions) fills a missing "
                        "gpu_brand; by default the catalog that ships with hwrec");
  AddFormatOption(options, &format_text);
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec hardware-id --profile JSON [--store STORE] [--format table|json]",
                 options, {}, &vm)) {
    return kExitOk;
  }
  const Format format = ParseFormat(format_text);
  auto profile = ParseHardwareProfile(vm["profile"].as<std::string>());
  if (!profile.ok()) {
    throw UsageError(fmt::format("--profile: {}", profile.status().message()));
  }
  auto catalog = LoadCatalog(vm["store"].as<std::string>());
  if (!catalog.ok()) return Fail(catalog.status());
  catalog->FillBrand(&*profile);
  auto v1 = HardwareProfileId(*profile, ProfileIdVersion::kV1);
  auto v2 = HardwareProfileId(*profile, ProfileIdVersion::kV2);
  if (!v1.ok()) return Fail(v1.status());
  if (!v2.ok()) return Fail(v2.status());
  const bool canonical = vm["canonical"].as<bool>();
  if (format == Format::kJson) {
    nlohmann::ordered_json out{{"hp_v1", *v1}, {"hp_v2", *v2}};
    if (canonical) {
      out["canonical_v1"] = *CanonicalProfile(*profile, ProfileIdVersion::kV1);
      out["canonical_v2"] = *CanonicalProfile(*profile, ProfileIdVersion::kV2);
    }
    std::cout << tools::DumpJson(out, -1) << "\n";
    return kExitOk;
  }
  std::cout << "hp_v1  " << *v1 << "\n"
            << "hp_v2  " << *v2 << "\n";
  if (canonical) {
    std::cout << "canonical_v1  "
              << TerminalSafe(*CanonicalProfile(*profile, ProfileIdVersion::kV1)) << "\n"
              << "canonical_v2  "
              << TerminalSafe(*CanonicalProfile(*profile, ProfileIdVersion::kV2)) << "\n";
  }
  return kExitOk;
}

}  // namespace hwrec::cli
