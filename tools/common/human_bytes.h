// Sizes and counts as people read them, for hwrec and hwrec-bench output.
#pragma once

#include <cstdint>
#include <string>

namespace hwrec::tools {

// "812 B", "1.5 GiB", "45.2 MiB": binary units, one decimal above bytes.
std::string HumanBytes(std::int64_t bytes);

}  // namespace hwrec::tools
