// Entry points of the hwrec CLI commands; each takes the arguments after its name.
#pragma once

#include "common/dispatch.h"

namespace hwrec::cli {

tools::HandlerFunction RunInit, RunStatus, RunMigrate, RunSchema, RunHardwareId, RunCatalog,
    RunPools, RunIngest, RunRecommend, RunConfig, RunRefresh, RunQuarantine, RunRoute, RunPlace,
    RunRetryFloor, RunCheck, RunCopy, RunBacktest, RunReport;

}  // namespace hwrec::cli
