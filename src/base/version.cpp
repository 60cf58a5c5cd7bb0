#include "hwrec/version.h"

namespace hwrec {

const char* Version() { return HWREC_VERSION; }

}  // namespace hwrec
