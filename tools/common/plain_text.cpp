#include "common/plain_text.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

namespace hwrec::tools {

std::string JoinOr(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? " or " : ", ";
    out += items[i];
  }
  return out;
}

std::string HoursText(double hours) {
  if (!(std::fabs(hours) < 1e9)) return fmt::format("{}", hours);
  std::string text = fmt::format("{:.4f}", hours);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

double NowEpochSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace hwrec::tools
