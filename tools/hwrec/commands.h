// Entry points of the hwrec CLI commands; each takes the arguments after its name.
#pragma once

#include <string>
#include <vector>

namespace hwrec::cli {

int RunInit(const std::vector<std::string>& args);
int RunStatus(const std::vector<std::string>& args);
int RunMigrate(const std::vector<std::string>& args);
int RunSchema(const std::vector<std::string>& args);
int RunHardwareId(const std::vector<std::string>& args);
int RunCatalog(const std::vector<std::string>& args);
int RunPools(const std::vector<std::string>& args);
int RunIngest(const std::vector<std::string>& args);
int RunRecommend(const std::vector<std::string>& args);
int RunConfig(const std::vector<std::string>& args);
int RunRefresh(const std::vector<std::string>& args);
int RunQuarantine(const std::vector<std::string>& args);
int RunRoute(const std::vector<std::string>& args);
int RunPlace(const std::vector<std::string>& args);
int RunCheck(const std::vector<std::string>& args);

}  // namespace hwrec::cli
