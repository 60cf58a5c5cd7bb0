#include "common/plain_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

namespace hwrec::tools {

std::string JoinOr(const std::vector<std::string>& items) {
  if (items.size() < 2) return items.empty() ? std::string() : items.front();
  return fmt::format("{} or {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

double NowEpochSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace hwrec::tools
