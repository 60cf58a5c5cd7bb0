// Private to src/store/: what a Store holds, shared by the files that open
// it (store.cpp) and report on it (store_status.cpp).
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <memory>
#include <string>

#include "hwrec/status.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/sqlite_connection.h"

namespace hwrec {

// Hidden, though its class is exported: only the library reaches it.
struct [[gnu::visibility("hidden")]] Store::Impl {
  // A SQLite file.
  Impl(const std::string& p, const std::string& name, int flags, const StoreOptions& o)
      : path(p),
        options(o),
        db(std::make_unique<SQLite::Database>(name, flags, o.busy_timeout_ms)),
        connection(store::MakeSqliteConnection(db->getHandle())) {}
  // A PostgreSQL database; `p` is the URI without its password.
  Impl(const std::string& p, const StoreOptions& o, std::unique_ptr<store::Connection> c)
      : path(p), options(o), connection(std::move(c)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();

  std::string path;
  StoreOptions options;
  std::unique_ptr<SQLite::Database> db;           // SQLite only
  std::unique_ptr<store::Connection> connection;  // the seam the layers above use
  std::string immutable_reason;                   // set when opened with immutable=1
  std::string schema_problem;                     // set when opened with inspect_schema despite one

  // A nested class reaches its Store's members: the library's one way to
  // a Store's connection (internal::StoreAccess, store::ConnectionOf).
  static Impl& Of(const Store& store) { return *store.impl_; }
  // The ways Store::Open goes, each defined below.
  static std::unique_ptr<Impl> Connect(const std::string& path, const StoreOptions& options);
  static Result<std::unique_ptr<Store>> OpenRecognised(const std::string& path,
                                                       const StoreOptions& options);
  static Result<std::unique_ptr<Store>> OpenPostgresql(const std::string& uri,
                                                       const StoreOptions& options);
};

}  // namespace hwrec
