#include "common/store_argument.h"

#include <boost/program_options.hpp>

namespace hwrec::tools {

namespace po = boost::program_options;

void AddStoreArgument(po::options_description& options,
                      po::positional_options_description& positional, std::string* path,
                      const char* help) {
  options.add_options()("store", path == nullptr ? po::value<std::string>() : po::value(path),
                        help);
  positional.add("store", 1);
}

StoreOptions CreatingStoreOptions() {
  StoreOptions options;
  options.create_if_missing = true;
  return options;
}

Result<std::unique_ptr<Store>> OpenStoreArgument(const std::string& path,
                                                 const StoreOptions& options) {
  if (path == ":memory:") {
    return Status::InvalidArgument(
        ":memory: is not a place for a store: what hwrec wrote there would be lost when the "
        "command ends: give a file path or a PostgreSQL location, created with "
        "`hwrec init STORE`");
  }
  return Store::Open(path, options);
}

}  // namespace hwrec::tools
