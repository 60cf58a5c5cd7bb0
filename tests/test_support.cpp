#include "test_support.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "doc_examples.h"
#include "hwrec/store_location.h"

namespace hwrec::test {

TempDir::TempDir() {
  std::random_device rd;
  const auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = base / ("hwrec-test-" + std::to_string(rd()));
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("could not create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::unique_ptr<Store> OpenStoreOrFail(const std::string& path, const StoreOptions& options) {
  StoreOptions creating = options;
  creating.create_if_missing = !options.read_only;
  auto store = Store::Open(path, creating);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return std::move(store).value();
}

bool TestingPostgresql() {
  const char* base = std::getenv("HWREC_TEST_POSTGRESQL");
  return base != nullptr && *base != '\0';
}

std::string NewStoreLocation(const TempDir& dir, const std::string& name) {
  if (!TestingPostgresql()) return dir.File(name);
  static std::atomic<int> counter{0};
  const std::string base = std::getenv("HWREC_TEST_POSTGRESQL");
  const std::string schema = fmt::format("t{}_{}", getpid(), ++counter);
  PGconn* conn = PQconnectdb(base.c_str());
  INFO(PQerrorMessage(conn));
  REQUIRE(PQstatus(conn) == CONNECTION_OK);
  // The schema name is made here of digits and letters; identifiers cannot be bound.
  PGresult* result = PQexec(conn, ("CREATE SCHEMA " + schema).c_str());
  const bool created = PQresultStatus(result) == PGRES_COMMAND_OK;
  INFO(PQresultErrorMessage(result));
  PQclear(result);
  PQfinish(conn);
  REQUIRE(created);
  return PostgresqlLocationInSchema(base, schema);
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  REQUIRE(out.good());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string ShellQuote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

CommandResult RunShell(const std::string& command_line, const std::string& stdin_text) {
  TempDir dir;
  const std::string in = dir.File("stdin");
  const std::string out = dir.File("stdout");
  const std::string err = dir.File("stderr");
  WriteFile(in, stdin_text);
  const std::string full =
      command_line + " <" + ShellQuote(in) + " >" + ShellQuote(out) + " 2>" + ShellQuote(err);
  const int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(out);
  result.err = ReadFile(err);
  return result;
}

nlohmann::json RunBenchJson(const std::string& args) {
  const CommandResult result = RunShell(ShellQuote(BenchPath()) + " " + args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return nlohmann::json::parse(result.out);
}

CommandResult RunCli(const std::string& args, const std::string& stdin_text) {
  return RunShell(ShellQuote(CliPath()) + " " + args, stdin_text);
}

void CheckCliDocExamples(const std::string& relative, std::size_t min_examples) {
  const std::string path = SourcePath(relative);
  const DocExamples doc = ParseDocExamples(ReadFile(path));
  REQUIRE(doc.steps.size() >= min_examples);
  TempDir dir;
  const bool update = std::getenv("HWREC_UPDATE_DOCS") != nullptr;
  std::map<std::size_t, std::string> actual;
  std::size_t written = 0;
  for (std::size_t i = 0; i < doc.steps.size(); ++i) {
    const auto& [files_before, example] = doc.steps[i];
    for (; written < files_before; ++written) {
      WriteFile(dir.File(doc.files[written].first), doc.files[written].second);
    }
    INFO(fmt::format("{} line {}: $ {}", relative, example.line, example.command));
    REQUIRE(example.command.rfind("hwrec ", 0) == 0);
    const auto r = RunShell(fmt::format("cd {} && {} {}", ShellQuote(dir.path().string()),
                                        ShellQuote(CliPath()), example.command.substr(6)));
    // A command that fails shows its exit code last, as "[exit 5]".
    actual[i] = r.out + r.err + (r.exit_code == 0 ? "" : fmt::format("[exit {}]\n", r.exit_code));
    if (!update) CHECK(actual[i] == example.expected);
  }
  if (update) WriteFile(path, RewriteDocExamples(doc, actual));
}

std::string ExampleStore(const TempDir& dir) {
  const std::string path = dir.File("example.db");
  const std::string store = ShellQuote(path);
  REQUIRE(RunCli("init " + store).exit_code == 0);
  REQUIRE(RunCli("pools import " + store + " " + ShellQuote(SourcePath("examples/pools.jsonl")))
              .exit_code == 0);
  REQUIRE(RunCli("ingest " + store + " " + ShellQuote(SourcePath("examples/observations.jsonl")))
              .exit_code == 3);
  return path;
}

std::string QuotedExampleStore(const TempDir& dir) { return ShellQuote(ExampleStore(dir)); }

}  // namespace hwrec::test
