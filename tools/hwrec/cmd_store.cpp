#include "commands.h"
#include "cli.h"
namespace hwrec::cli {
int RunInit(const std::vector<std::string>&) { return Fail(Status::Internal("not built yet")); }
int RunStatus(const std::vector<std::string>&) { return Fail(Status::Internal("not built yet")); }
int RunMigrate(const std::vector<std::string>&) { return Fail(Status::Internal("not built yet")); }
int RunSchema(const std::vector<std::string>&) { return Fail(Status::Internal("not built yet")); }
}  // namespace hwrec::cli
