#include "bench/postgresql_target.h"

#include "bench/bench_util.h"
#include "bench/build_paths.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "hwrec/store_location.h"

namespace hwrec::bench {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

struct ScriptRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `bash script args` with its output in files of `dir`.
ScriptRun RunScript(const std::string& script, const std::string& args, const std::string& dir) {
  const std::string out = dir + "/script.out";
  const std::string err = dir + "/script.err";
  const std::string command = fmt::format("bash {} {} >{} 2>{}", ShellQuote(script), args,
                                          ShellQuote(out), ShellQuote(err));
  const int status = std::system(command.c_str());
  ScriptRun run;
  run.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadAll(out);
  run.err = ReadAll(err);
  return run;
}

std::string MakeDirectory() {
  std::string pattern = "/tmp/hwrec-bench-pg-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a directory for the throwaway server under /tmp");
  }
  return pattern;
}

}  // namespace

std::string DefaultServerScript() { return SourceTreePath("scripts/pg_server.sh"); }

PostgresqlServer::PostgresqlServer(const std::string& uri, const std::string& script)
    : script_(script), uri_(uri) {
  if (!uri_.empty()) return;
  if (access(script_.c_str(), R_OK) != 0) {
    throw std::runtime_error(
        fmt::format("no --postgresql URI, and no {} to start a throwaway server with: pass "
                    "--postgresql URI or --pg-server-script PATH",
                    script_));
  }
  const std::string dir = MakeDirectory();
  const ScriptRun bindir = RunScript(script_, "bindir", dir);
  if (bindir.exit_code != 0 || access((bindir.out + "/initdb").c_str(), X_OK) != 0) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    throw std::runtime_error(fmt::format(
        "no PostgreSQL server binaries to start a throwaway server with ({}): install Debian's "
        "postgresql package or set HWREC_PG_BINDIR, or pass --postgresql URI",
        bindir.exit_code != 0 ? bindir.err : "no initdb in " + bindir.out));
  }
  // Durable like a real server: fsync on, as SQLite's WAL checkpoints are.
  setenv("HWREC_PG_DURABLE", "1", 1);
  dir_ = dir;
  const ScriptRun start = RunScript(script_, "start " + ShellQuote(dir_), dir_);
  if (start.exit_code != 0 || start.out.rfind("postgresql://", 0) != 0) {
    const std::string why = start.err;
    Stop();
    throw std::runtime_error("the throwaway PostgreSQL server did not start: " + why);
  }
  uri_ = start.out;
}

PostgresqlServer::~PostgresqlServer() { Stop(); }

void PostgresqlServer::Stop() noexcept {
  if (dir_.empty()) return;
  const ScriptRun stop = RunScript(script_, "stop " + ShellQuote(dir_), dir_);
  if (stop.exit_code != 0) {
    std::cerr << "hwrec-bench: stopping the throwaway server in " << dir_ << " failed: " << stop.err
              << "\n";
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
  dir_.clear();
}

ScratchSchema::ScratchSchema(const std::string& base_uri) : admin_(BenchSql::Open(base_uri)) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  name_ = fmt::format("hwrec_bench_{}_{}", getpid(),
                      std::chrono::duration_cast<std::chrono::microseconds>(now).count());
  // A name made here from digits: no value of anyone's is formatted into SQL.
  admin_->Execute("CREATE SCHEMA " + name_);
  uri_ = PostgresqlLocationInSchema(base_uri, name_);
}

ScratchSchema::~ScratchSchema() {
  try {
    admin_->Execute("DROP SCHEMA " + name_ + " CASCADE");
  } catch (const std::exception& e) {
    std::cerr << "hwrec-bench: dropping the scratch schema " << name_ << " failed: " << e.what()
              << "\n";
  }
}

}  // namespace hwrec::bench
