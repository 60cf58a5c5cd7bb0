// Byte units as hwrec counts them: binary (2^20, 2^30), as the Runner's
// memory figures and GPU memory in GiB are.
#pragma once

namespace hwrec::internal {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace hwrec::internal
