// Remedies: each has one identity that the CLI, the Python module and a C++
// host word their own way, and hwrec's messages use the words of the host
// that shows them.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <tuple>

#include "hwrec/catalog.h"
#include "hwrec/check.h"
#include "hwrec/config.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/pool_import.h"
#include "hwrec/refresh.h"
#include "hwrec/remedy.h"
#include "hwrec/router_config.h"
#include "hwrec/store.h"
#include "hwrec/store_copy.h"
#include "test_support.h"

namespace remedy_test {

// Sets the host for one test and puts the CLI's back after it.
class HostFor {
 public:
  explicit HostFor(hwrec::RemedyHost host) { hwrec::SetRemedyHost(host); }
  ~HostFor() { hwrec::SetRemedyHost(hwrec::RemedyHost::kCli); }
  HostFor(const HostFor&) = delete;
  HostFor& operator=(const HostFor&) = delete;
};

// The C++ words name these functions; taking their addresses keeps the words
// true when one is renamed.
[[maybe_unused]] const auto kNamedFunctions = std::make_tuple(
    &hwrec::PlanLegacyMigration, &hwrec::MigrateStore, &hwrec::CheckStore,
    &hwrec::RefreshRecommendations, &hwrec::RebuildRecommendations, &hwrec::CopyStore,
    &hwrec::ListConfig, &hwrec::GpuCatalog::Load, &hwrec::ImportCatalogCsv, &hwrec::ListQuarantine,
    &hwrec::ResolveQuarantine, &hwrec::ImportRouterConfig, &hwrec::HardwareProfileId);

TEST_CASE("remedy: each remedy is worded once per host, each wording its own", "[remedy]") {
  std::set<std::string> names;
  for (const hwrec::Remedy remedy : hwrec::kRemedies) {
    const std::string cli = hwrec::RemedyText(remedy, hwrec::RemedyHost::kCli, "db.sqlite");
    const std::string python = hwrec::RemedyText(remedy, hwrec::RemedyHost::kPython, "db.sqlite");
    const std::string cpp = hwrec::RemedyText(remedy, hwrec::RemedyHost::kCpp, "db.sqlite");
    INFO(hwrec::ToString(remedy) << ": " << cli << " / " << python << " / " << cpp);
    CHECK(names.insert(std::string(hwrec::ToString(remedy))).second);
    CHECK(cli.rfind("`hwrec ", 0) == 0);
    CHECK(python.find("(") != std::string::npos);
    CHECK(python.find("hwrec ") == std::string::npos);
    CHECK(cpp.rfind("`hwrec::", 0) == 0);
    // The CLI's command is one `hwrec --help` lists.
    const std::string command = cli.substr(7, cli.find_first_of(" `", 7) - 7);
    const auto help = hwrec::test::RunCli("--help");
    CHECK(help.out.find("\n  " + command + " ") != std::string::npos);
  }
  CHECK(hwrec::RemedyText(hwrec::Remedy::kInit, hwrec::RemedyHost::kPython, "it's.db") ==
        "`hwrec.Store.init('it\\'s.db')`");
  CHECK(hwrec::RemedyText(hwrec::Remedy::kMigrateDryRun, hwrec::RemedyHost::kCli) ==
        "`hwrec migrate --dry-run`");
}

TEST_CASE("remedy: a library error names the remedy in the words of the process's host",
          "[remedy]") {
  hwrec::test::TempDir dir;
  const std::string missing = dir.File("missing.db");
  const auto open = [&] { return hwrec::Store::Open(missing).status().message(); };
  CHECK_THAT(open(), Catch::Contains("create it with `hwrec init " + missing + "`"));
  {
    HostFor python(hwrec::RemedyHost::kPython);
    CHECK_THAT(open(), Catch::Contains("create it with `hwrec.Store.init('" + missing + "')`"));
  }
  {
    HostFor cpp(hwrec::RemedyHost::kCpp);
    CHECK_THAT(open(), Catch::Contains("`hwrec::Store::Open(\"" + missing + "\""));
    CHECK_THAT(hwrec::CheckConfigValue("memory.margn", "1").message(),
               Catch::Contains("`hwrec::ListConfig(store)`"));
  }
  CHECK(hwrec::CurrentRemedyHost() == hwrec::RemedyHost::kCli);
  // The CLI itself says the CLI's words.
  const auto r = hwrec::test::RunCli("status " + missing);
  CHECK_THAT(r.err, Catch::Contains("`hwrec init " + missing + "`"));
}

}  // namespace remedy_test
