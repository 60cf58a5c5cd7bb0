// The paths of this checkout and build, for test_support.h. They are compile
// definitions of this file alone (tests/CMakeLists.txt).
#include "test_support.h"

namespace hwrec::test {

std::string TestDataPath(const std::string& name) {
  return std::string(HWREC_TEST_DATA_DIR) + "/" + name;
}

std::string SourcePath(const std::string& relative) {
  return std::string(HWREC_SOURCE_DIR) + "/" + relative;
}

std::string SharedDataPath(const std::string& relative) {
  const std::string dir = HWREC_SHARED_DATA_DIR;
  return relative.empty() ? dir : dir + "/" + relative;
}

std::string CliPath() { return HWREC_CLI_PATH; }

std::string BenchPath() { return HWREC_BENCH_PATH; }

std::string SharedLibraryPath() { return HWREC_SHARED_LIBRARY_PATH; }

}  // namespace hwrec::test
