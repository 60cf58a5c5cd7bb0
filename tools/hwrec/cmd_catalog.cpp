#include "commands.h"
#include "cli.h"
namespace hwrec::cli {
int RunCatalog(const std::vector<std::string>&) { return Fail(Status::Internal("not built yet")); }
}  // namespace hwrec::cli
