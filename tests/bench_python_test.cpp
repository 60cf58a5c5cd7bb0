// hwrec-bench python, run as a user would: one run times the same recommend,
// place and ingest in C++ and through the Python module and prints the ratios.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "test_support.h"

namespace hwrec::test {
namespace {

// Where the build puts the hwrec package: <build>/python, beside <build>/tools.
std::filesystem::path ModuleDir() {
  return std::filesystem::path(BenchPath()).parent_path().parent_path() / "python";
}

}  // namespace

TEST_CASE(
    "bench python: one run times recommend, place and ingest in both languages and prints "
    "the ratios",
    "[bench][python]") {
  if (!std::filesystem::exists(ModuleDir() / "hwrec")) {
    WARN("skipped: the hwrec Python module is not built in " << ModuleDir().string()
                                                             << " (HWREC_PYTHON off)");
    return;
  }
  const std::string bench = ShellQuote(BenchPath()) + " python --iterations 5";

  const CommandResult table = RunShell(bench);
  INFO(table.out << table.err);
  REQUIRE(table.exit_code == 0);
  for (const char* text : {"recommend", "place, 100 candidates", "ingest, 1 record per txn",
                           "ratio50", "ratio99", "<= 1.3", "<= 1.5", "raw ceiling",
                           "rows per record (aggregates", "hwrec, C++", "hwrec, Python"}) {
    CHECK_THAT(table.out, Catch::Contains(text));
  }

  const CommandResult json_run = RunShell(bench + " --format json");
  INFO(json_run.err);
  REQUIRE(json_run.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(json_run.out);
  std::set<std::string> timed;
  for (const nlohmann::json& call : report.at("calls")) {
    if (!call.contains("python_p50_ms")) continue;
    timed.insert(call.at("call").get<std::string>());
    CHECK(call.at("ratio_p50").get<double>() > 0);
    CHECK(call.at("ratio_p99").get<double>() > 0);
  }
  CHECK(timed == std::set<std::string>{"recommend", "place, 100 candidates",
                                       "ingest, 1 record per txn", "ingest, 1 JSON line per txn"});
  CHECK_FALSE(report.at("chosen").get<std::string>().empty());
  // The ceiling writes the rows hwrec wrote: an observation and its aggregates each record.
  const nlohmann::json& ceiling = report.at("single_record_ceiling");
  CHECK(ceiling.at("rows_by_table").at("observations").get<int>() == 5 + 5);
  CHECK(ceiling.at("rows_per_record").get<double>() >= 2);
  CHECK(ceiling.at("ceiling_p50_ms").get<double>() > 0);
  CHECK(ceiling.at("cpp_ratio_p50").get<double>() > 0);
}

TEST_CASE("bench targets: one run prints every write-path ratio beside its target",
          "[bench][python]") {
  if (!std::filesystem::exists(ModuleDir() / "hwrec")) {
    WARN("skipped: the hwrec Python module is not built in " << ModuleDir().string()
                                                             << " (HWREC_PYTHON off)");
    return;
  }
  const CommandResult run =
      RunShell(ShellQuote(BenchPath()) +
               " targets --observations 2000 --rows 2000 --recommend-observations 20000 "
               "--iterations 100 --format json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(run.out);
  std::vector<std::string> measures;
  for (const nlohmann::json& target : report.at("targets")) {
    const std::string measure = target.at("measure").get<std::string>();
    // What follows " (" (the ceiling's rows a record, ...) is not pinned here.
    measures.push_back(measure.substr(0, measure.find(" (")));
    CHECK(target.at("ratio").get<double>() > 0);
    const bool met = target.at("at_least").get<bool>()
                         ? target.at("ratio").get<double>() >= target.at("target").get<double>()
                         : target.at("ratio").get<double>() <= target.at("target").get<double>();
    CHECK(target.at("met").get<bool>() == met);
  }
  CHECK(measures == std::vector<std::string>{
                        "single record p50, C++ / raw ceiling",
                        "single record p50, Python / C++",
                        "bulk ingest of 2,000 observations",
                        "legacy migration of 2,000 rows",
                        "router ladder build p50",
                        "router ladder build p99",
                        "recommend p99",
                        "placement over 1,000 candidates p99",
                    });
}

TEST_CASE("bench python: a missing module is an error naming where it looked and the fix",
          "[bench][python]") {
  const CommandResult result =
      RunShell(ShellQuote(BenchPath()) + " python --module-dir /nonexistent/python");
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("not built in /nonexistent/python"));
  CHECK_THAT(result.err, Catch::Contains("HWREC_PYTHON=ON"));
}

}  // namespace hwrec::test
