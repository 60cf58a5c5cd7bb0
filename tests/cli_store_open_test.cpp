// How the CLI opens a STORE: another program's database is refused untouched,
// only `hwrec init` creates, a store with an altered migration can still be
// looked at, read-only places are readable, and open failures are explained.
#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_support.h"

using hwrec::test::ReadFile;
using hwrec::test::RunCli;
using hwrec::test::RunShell;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

namespace {

std::string Pools() { return ShellQuote(hwrec::test::SourcePath("examples/pools.jsonl")); }
std::string Observations() {
  return ShellQuote(hwrec::test::SourcePath("examples/observations.jsonl"));
}

// Every command that opens a STORE, as a user would run it on `store`.
std::vector<std::string> StoreCommands(const std::string& store) {
  return {"ingest " + store + " " + Observations(),
          "init " + store,
          "migrate " + store,
          "migrate " + store + " --dry-run",
          "status " + store,
          "status " + store + " --read-only",
          "recommend " + store + " --image ghcr.io/acme/llm-finetune:2.3",
          "pools import " + store + " " + Pools()};
}

// The CLI where `nobody` may run it: the build tree can sit in a directory
// only root may enter (a fresh clone under mktemp -d), so a copy of the
// binary (and of libhwrec.so when hwrec is shared, found through
// LD_LIBRARY_PATH) lives in a directory of its own, removed when the tests
// end. Returns the command line that runs it.
const std::string& CliForNobody() {
  namespace fs = std::filesystem;
  static TempDir dir;
  static const std::string command = [] {
    const fs::perms readable_by_all = fs::perms::owner_all | fs::perms::group_read |
                                      fs::perms::group_exec | fs::perms::others_read |
                                      fs::perms::others_exec;
    fs::permissions(dir.path(), readable_by_all);
    const auto copy = [&](const fs::path& from) {
      const fs::path to = dir.path() / from.filename();
      fs::copy_file(from, to, fs::copy_options::overwrite_existing);
      fs::permissions(to, readable_by_all);
      return to.string();
    };
    const std::string cli = copy(hwrec::test::CliPath());
    const std::string library = hwrec::test::SharedLibraryPath();
    if (library.empty()) return ShellQuote(cli);
    copy(library);
    return "env LD_LIBRARY_PATH=" + ShellQuote(dir.path().string()) + " " + ShellQuote(cli);
  }();
  return command;
}

// Runs the CLI as the unprivileged user `nobody`, for whom permission bits
// count (root ignores them).
hwrec::test::CommandResult RunCliAsNobody(const std::string& args) {
  return RunShell("runuser -u nobody -- " + CliForNobody() + " " + args);
}

bool CanRunAsNobody() {
  return geteuid() == 0 && RunShell("runuser -u nobody -- true").exit_code == 0 &&
         RunCliAsNobody("--version").exit_code == 0;
}

// A store with the example pools and history in a directory only root may
// write, which `nobody` may read.
// With `keep_wal_files` false only the store file is there, as when it was
// copied alone onto the medium.
std::string ReadOnlyDirStore(const TempDir& dir, bool keep_wal_files = true) {
  const std::string store = dir.File("store.db");
  REQUIRE(RunCli("init " + ShellQuote(store)).exit_code == 0);
  REQUIRE(RunCli("pools import " + ShellQuote(store) + " " + Pools()).exit_code == 0);
  RunCli("ingest " + ShellQuote(store) + " " + Observations());
  namespace fs = std::filesystem;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(store, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                             fs::perms::others_read);
  // hwrec leaves an empty -wal and the -shm beside a store it closed; they
  // stay root's too, as on a medium made read-only after use.
  for (const char* suffix : {"-wal", "-shm"}) {
    if (!fs::exists(store + suffix)) continue;
    if (keep_wal_files) {
      fs::permissions(store + suffix, fs::perms::owner_read | fs::perms::owner_write |
                                          fs::perms::group_read | fs::perms::others_read);
    } else {
      fs::remove(store + suffix);
    }
  }
  return store;
}

}  // namespace

TEST_CASE("cli: every command refuses another program's database and leaves it byte-identical",
          "[cli][open]") {
  TempDir dir;
  const std::string path = dir.File("other.db");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(
        "CREATE TABLE observations (id INTEGER PRIMARY KEY, what TEXT);"
        "CREATE TABLE jobs (id INTEGER); INSERT INTO observations VALUES (1, 'theirs')");
  }
  const std::string before = ReadFile(path);
  for (const std::string& command : StoreCommands(ShellQuote(path))) {
    const auto r = RunCli(command);
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("is not an hwrec store"));
    CHECK_THAT(r.err, Catch::Contains("jobs, observations"));
    CHECK(ReadFile(path) == before);
  }
  CHECK_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST_CASE("cli: only init creates a store; other commands refuse a missing or empty STORE",
          "[cli][open]") {
  TempDir dir;
  const std::string empty = dir.File("empty.db");
  hwrec::test::WriteFile(empty, "");
  for (const std::string& path : {empty, dir.File("absent.db")}) {
    for (const std::string& command : StoreCommands(ShellQuote(path))) {
      if (command.rfind("init ", 0) == 0) continue;
      const auto r = RunCli(command);
      INFO(command << "\n" << r.err);
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.err, Catch::Contains("no hwrec store at " + path));
      CHECK_THAT(r.err, Catch::Contains("create it with `hwrec init " + path + "`"));
    }
  }
  CHECK(std::filesystem::file_size(empty) == 0);
  CHECK_FALSE(std::filesystem::exists(dir.File("absent.db")));
  const auto init = RunCli("init " + ShellQuote(empty));
  CHECK(init.exit_code == 0);
  CHECK_THAT(init.out, Catch::Contains("created store"));
  CHECK(RunCli("status " + ShellQuote(empty)).exit_code == 0);
}

TEST_CASE("cli: :memory: is refused as a STORE, naming why", "[cli][open]") {
  for (const std::string& command :
       {std::string("ingest :memory: -"), std::string("status :memory:"),
        std::string("init :memory:"), std::string("recommend :memory: --image x")}) {
    const auto r = RunCli(command, "");
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains(":memory: is not a place for a store"));
  }
}

TEST_CASE("cli: status shows a store whose applied migration changed, naming the mismatch",
          "[cli][open]") {
  TempDir dir;
  const std::string store = dir.File("altered.db");
  REQUIRE(RunCli("init " + ShellQuote(store)).exit_code == 0);
  {
    SQLite::Database raw(store, SQLite::OPEN_READWRITE);
    raw.exec("UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 3");
  }
  const auto table = RunCli("status " + ShellQuote(store));
  INFO(table.err);
  CHECK(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("schema problem: migration 0003_gpu_catalog_seed"));
  CHECK_THAT(table.out, Catch::Contains("observations"));
  const auto json = RunCli("status " + ShellQuote(store) + " --format json");
  REQUIRE(json.exit_code == 0);
  const auto parsed = nlohmann::json::parse(json.out);
  CHECK_THAT(parsed["schema_problem"].get<std::string>(), Catch::Contains("checksum deadbeef"));
  REQUIRE(RunCli("init " + ShellQuote(dir.File("sound.db"))).exit_code == 0);
  const auto sound = RunCli("status " + ShellQuote(dir.File("sound.db")) + " --format json");
  CHECK(nlohmann::json::parse(sound.out)["schema_problem"].is_null());

  for (const std::string& command :
       {"recommend " + ShellQuote(store) + " --image x", "ingest " + ShellQuote(store) + " -"}) {
    const auto refused = RunCli(command, "");
    INFO(command);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Catch::Contains("0003_gpu_catalog_seed"));
  }
}

TEST_CASE(
    "cli: status, recommend, place, route and check read a store in a directory no one else "
    "can write",
    "[cli][open][readonly]") {
  if (!CanRunAsNobody()) {
    WARN("skipped: needs root and runuser to run the CLI as the unprivileged user nobody");
    return;
  }
  const bool keep_wal_files = GENERATE(true, false);
  INFO((keep_wal_files ? "with" : "without") << " the -wal and -shm files beside the store");
  TempDir dir;
  const std::string store = ShellQuote(ReadOnlyDirStore(dir, keep_wal_files));
  const std::string candidates = dir.File("candidates.json");
  hwrec::test::WriteFile(candidates, R"([{"node_pool_id": "sitea-a100-80gb"}])");
  const std::string before = ReadFile(dir.File("store.db"));
  for (const std::string& flag : {std::string(), std::string(" --read-only")}) {
    const auto status = RunCliAsNobody("status " + store + flag);
    INFO(status.err);
    CHECK(status.exit_code == 0);
    // Without a -shm to share, SQLite cannot make one here: hwrec opens immutable.
    CHECK_THAT(status.out,
               Catch::Contains(keep_wal_files ? "opened:         read-only\n"
                                              : "opened:         read-only (immutable: the "
                                                "directory cannot be written)"));
    CHECK_THAT(status.out, !Catch::Contains("not WAL"));
    const auto recommend =
        RunCliAsNobody("recommend " + store +
                       " --image ghcr.io/acme/llm-finetune:2.3 --pool sitea-a100-80gb" + flag);
    INFO(recommend.err);
    CHECK(recommend.exit_code == 0);
    const auto place =
        RunCliAsNobody("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
                       ShellQuote(candidates) + flag);
    INFO(place.err);
    CHECK(place.exit_code == 0);
    const auto route = RunCliAsNobody("route " + store + " --intent capture-7b --length 2h" + flag);
    INFO(route.err);
    CHECK(route.exit_code == 0);
  }
  // check never writes: it reads such a store as it is, with no flag to add.
  const auto check = RunCliAsNobody("check " + store);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.out, Catch::Contains("the store is sound"));
  CHECK(ReadFile(dir.File("store.db")) == before);
}

TEST_CASE("cli: writing commands in a folder this user cannot write say so and what to do",
          "[cli][open][readonly]") {
  if (!CanRunAsNobody()) {
    WARN("skipped: needs root and runuser to run the CLI as the unprivileged user nobody");
    return;
  }
  TempDir dir;
  const std::string store = ShellQuote(ReadOnlyDirStore(dir));
  const auto init = RunCliAsNobody("init " + ShellQuote(dir.File("new.db")));
  CHECK(init.exit_code == 1);
  CHECK_THAT(init.err, Catch::Contains("cannot create the store: this user cannot write the "
                                       "directory " +
                                       dir.path().string()));
  // Inputs `nobody` may read: the source tree may sit where only root can enter.
  const std::string observations = dir.File("observations.jsonl");
  const std::string pools = dir.File("pools.jsonl");
  hwrec::test::WriteFile(observations,
                         ReadFile(hwrec::test::SourcePath("examples/observations.jsonl")));
  hwrec::test::WriteFile(pools, ReadFile(hwrec::test::SourcePath("examples/pools.jsonl")));
  for (const std::string& input : {observations, pools}) {
    std::filesystem::permissions(
        input, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                   std::filesystem::perms::group_read | std::filesystem::perms::others_read);
  }
  for (const std::string& command : {"ingest " + store + " " + ShellQuote(observations),
                                     "pools import " + store + " " + ShellQuote(pools)}) {
    const auto r = RunCliAsNobody(command);
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("this user cannot write the store"));
    CHECK_THAT(r.err, !Catch::Contains("attempt to write a readonly database"));
  }
}

TEST_CASE("cli: a directory or a non-database file given as STORE is named, with the fix",
          "[cli][open]") {
  TempDir dir;
  const std::string text = dir.File("notes.txt");
  hwrec::test::WriteFile(text, std::string(4096, 'n'));
  for (const std::string& command : StoreCommands(ShellQuote(dir.path().string()))) {
    const auto r = RunCli(command);
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("is a directory, not a store file"));
  }
  for (const std::string& command : StoreCommands(ShellQuote(text))) {
    const auto r = RunCli(command);
    INFO(command << "\n" << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("is not an SQLite database, so not an hwrec store"));
    CHECK_THAT(r.err, !Catch::Contains("file is not a database"));
  }
  CHECK(ReadFile(text) == std::string(4096, 'n'));
}

TEST_CASE("cli: init and copy never create a store through a link or in another's empty file",
          "[cli][open][readonly]") {
  if (!CanRunAsNobody()) {
    WARN("skipped: needs root and runuser to run the CLI as the unprivileged user nobody");
    return;
  }
  namespace fs = std::filesystem;
  TempDir dir;
  // A shared directory everyone may write, sticky as /tmp is.
  const std::string shared = dir.File("shared");
  fs::create_directory(shared);
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
  fs::permissions(dir.path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  // What `nobody` plants: a link to a path of root's, and an empty file.
  const std::string target = dir.File("roots.db");
  const std::string link = shared + "/store.db";
  const std::string empty = shared + "/empty.db";
  REQUIRE(RunShell("runuser -u nobody -- ln -s " + ShellQuote(target) + " " + ShellQuote(link))
              .exit_code == 0);
  REQUIRE(RunShell("runuser -u nobody -- touch " + ShellQuote(empty)).exit_code == 0);

  const auto init = RunCli("init " + ShellQuote(link));
  INFO(init.err);
  CHECK(init.exit_code == 1);
  CHECK_THAT(init.err, Catch::Contains(link + " is a symbolic link"));
  CHECK_FALSE(fs::exists(target));
  const auto in_empty = RunCli("init " + ShellQuote(empty));
  INFO(in_empty.err);
  CHECK(in_empty.exit_code == 1);
  CHECK_THAT(in_empty.err, Catch::Contains("an empty file of another user"));
  CHECK(fs::file_size(empty) == 0);

  const std::string source = dir.File("source.db");
  REQUIRE(RunCli("init " + ShellQuote(source)).exit_code == 0);
  const auto copy = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(link));
  INFO(copy.err);
  CHECK(copy.exit_code == 1);
  CHECK_FALSE(fs::exists(target));
  // This user's own empty file, and a path that is no link, still become stores.
  const std::string mine = dir.File("mine.db");
  hwrec::test::WriteFile(mine, "");
  CHECK(RunCli("init " + ShellQuote(mine)).exit_code == 0);
}
