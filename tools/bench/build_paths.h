// Where this hwrec-bench was built from: the defaults of `hwrec-bench python`
// (python/bench.py and the built module) and of the throwaway PostgreSQL
// server (scripts/pg_server.sh). The paths reach build_paths.cpp alone, so
// every other file of the benchmark compiles the same in every clone.
#pragma once

#include <string>
#include <string_view>

namespace hwrec::bench {

// `relative` under the source tree this benchmark was built from.
std::string SourceTreePath(std::string_view relative);

// The folder of the build tree that holds the hwrec Python package.
std::string BuiltPythonModuleDir();

}  // namespace hwrec::bench
