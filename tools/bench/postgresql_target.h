// Where hwrec-bench measures PostgreSQL: the server --postgresql names, or a
// throwaway one started with scripts/pg_server.sh and stopped when the bench
// ends (on failure too); and in it a fresh schema per run, dropped at the end,
// so that a bench never reads or writes anyone's data. Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "bench/bench_sql.h"
#include "bench/bench_util.h"

namespace hwrec::bench {

// A PostgreSQL server for one bench run.
class PostgresqlServer {
 public:
  // Uses `uri` when it is not empty; otherwise starts a throwaway server with
  // `script` (scripts/pg_server.sh). Throws std::runtime_error saying what to
  // do when the server binaries are missing or the server does not start.
  PostgresqlServer(const std::string& uri, const std::string& script);
  ~PostgresqlServer();  // stops a server it started; never throws
  PostgresqlServer(const PostgresqlServer&) = delete;
  PostgresqlServer& operator=(const PostgresqlServer&) = delete;

  const std::string& uri() const { return uri_; }
  bool throwaway() const { return !dir_.empty(); }

 private:
  void Stop() noexcept;

  std::string script_;
  std::string dir_;  // the script's DIR while a throwaway server runs
  std::string uri_;
};

// A schema of its own in the server's database: created empty, dropped with
// everything in it at destruction.
class ScratchSchema {
 public:
  explicit ScratchSchema(const std::string& base_uri);
  ~ScratchSchema();  // never throws
  ScratchSchema(const ScratchSchema&) = delete;
  ScratchSchema& operator=(const ScratchSchema&) = delete;

  // The base URI with search_path set to the schema: the store's location.
  const std::string& uri() const { return uri_; }
  const std::string& name() const { return name_; }

 private:
  std::unique_ptr<BenchSql> admin_;
  std::string name_;
  std::string uri_;
};

// The pg_server.sh of the source tree hwrec-bench was built from.
std::string DefaultServerScript();

}  // namespace hwrec::bench
