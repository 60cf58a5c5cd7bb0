// The STORE argument of hwrec and hwrec-bench commands: how it is given
// (`--store STORE` or the first positional argument: a SQLite file path or a
// postgresql:// URI) and the rules for opening what it names.
#pragma once

#include <memory>
#include <string>

#include "common/program_options_fwd.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::tools {

inline constexpr const char* kStoreArgumentHelp =
    "the store (positional): a file path or a PostgreSQL location";

// Adds --store (stored into `*path`, or only into the variables map when
// `path` is null) and makes it the first positional argument.
void AddStoreArgument(boost::program_options::options_description& options,
                      boost::program_options::positional_options_description& positional,
                      std::string* path = nullptr, const char* help = kStoreArgumentHelp);

// Options that create the store at the latest schema when the path is fresh.
StoreOptions CreatingStoreOptions();

// Opens the store named by a STORE argument. Returns kInvalidArgument for
// ":memory:" (a store there would vanish with the command), else what
// Store::Open returns.
Result<std::unique_ptr<Store>> OpenStoreArgument(const std::string& path,
                                                 const StoreOptions& options);

}  // namespace hwrec::tools
