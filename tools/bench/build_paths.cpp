#include "bench/build_paths.h"

namespace hwrec::bench {

std::string SourceTreePath(std::string_view relative) {
  return std::string(HWREC_SOURCE_DIR "/").append(relative);
}

std::string BuiltPythonModuleDir() { return HWREC_PYTHON_MODULE_DIR; }

}  // namespace hwrec::bench
