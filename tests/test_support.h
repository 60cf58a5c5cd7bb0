// Helpers for hwrec tests: temporary directories, fixture paths, running the CLI.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "hwrec/store.h"

namespace hwrec::test {

// Whether this build runs under AddressSanitizer or ThreadSanitizer (GCC's
// macros). The seeded crash test of the whole migration tries half its kill
// points there: each point costs two sanitized migrations, the sanitizers see
// the same code at every point, and the dev build tries all of them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// A fresh directory removed at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Opens a store at `path`, creating it unless `options` is read-only; fails
// the test when it cannot.
std::unique_ptr<Store> OpenStoreOrFail(const std::string& path, const StoreOptions& options = {});

// Whether the store-level tests run on PostgreSQL: HWREC_TEST_POSTGRESQL
// holds the base URI of a test server (scripts/with_pg.sh sets it).
bool TestingPostgresql();
// Where to make a new store named `name`: a file in `dir` on SQLite; on
// PostgreSQL, a fresh empty schema of the test server, selected by the URI
// it returns (search_path). Tests of what every engine does use this; tests
// of SQLite files (journals, backups, permissions) use dir.File().
std::string NewStoreLocation(const TempDir& dir, const std::string& name);

void WriteFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the hwrec CLI with `args` (shell-quoted by the caller), optional stdin text.
CommandResult RunCli(const std::string& args, const std::string& stdin_text = "");
// Runs any shell command line.
CommandResult RunShell(const std::string& command_line, const std::string& stdin_text = "");
// Runs `hwrec-bench <args>` (shell-quoted by the caller), which must succeed
// and print JSON; returns it parsed.
nlohmann::json RunBenchJson(const std::string& args);

// Quotes one argument for /bin/sh.
std::string ShellQuote(const std::string& arg);

// Where things are, compiled into test_paths.cpp alone (so that the other
// test files compile the same in every checkout, and a compiler cache shared
// by several checkouts serves them all).
std::string TestDataPath(const std::string& name);        // tests/data/<name>
std::string SourcePath(const std::string& relative);      // <repo>/<relative>
std::string SharedDataPath(const std::string& relative);  // <repo>/../shared/data[/<relative>]
std::string CliPath();                                    // the hwrec CLI of this build
std::string BenchPath();                                  // hwrec-bench of this build
// The libhwrec.so.N these programs load; empty when hwrec is a static library.
std::string SharedLibraryPath();

// <dir>/example.db made by the CLI from the bundled example: its pools
// registered and its observations ingested (ingest exits 3: the example holds
// bad records on purpose). Returns the path, unquoted.
std::string ExampleStore(const TempDir& dir);
// The same, shell-quoted for a command line.
std::string QuotedExampleStore(const TempDir& dir);

// Re-runs every `hwrec …` command of the ```console blocks of the document at
// <repo>/<relative> in a scratch directory holding the files its ```lang
// file=NAME blocks define, and checks each output against the text; with
// HWREC_UPDATE_DOCS set, writes the actual outputs into the document instead.
// At least `min_examples` commands must be found.
void CheckCliDocExamples(const std::string& relative, std::size_t min_examples);

}  // namespace hwrec::test
