// The version of this hwrec build.
#pragma once

#include "hwrec/export.h"

namespace hwrec {

// "0.1.0"
HWREC_EXPORT const char* Version();

}  // namespace hwrec
