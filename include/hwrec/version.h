// The version of this hwrec build.
#pragma once

namespace hwrec {

// "0.1.0"
const char* Version();

}  // namespace hwrec
