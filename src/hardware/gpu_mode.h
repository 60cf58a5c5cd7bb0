// Syntax of a gpu_mode as node pools and the catalog record it: the whole card
// (`full`) or one MIG profile (`mig-<N>g.<memory>`, N = compute slices).
#pragma once

#include <optional>
#include <string_view>

namespace hwrec::internal {

// N of "mig-<N>g.<memory>", or nullopt when `mode` is not that shape.
std::optional<int> MigComputeSlices(std::string_view mode);

// True for "full" and for a well-formed MIG profile.
bool IsGpuModeSyntax(std::string_view mode);

}  // namespace hwrec::internal
