// HWREC_EXPORT marks what libhwrec exports: every type and function that
// include/hwrec/ declares. The library compiles with hidden visibility, so a
// shared libhwrec exports these alone; the layers' own code stays private to
// it (tests/check_exports.py checks the list).
#pragma once

#define HWREC_EXPORT [[gnu::visibility("default")]]
