#include "terminal_text.h"

#include <cstdint>

namespace hwrec::cli {

namespace {

// Length of the valid UTF-8 sequence starting at `i` and its code point, or 0
// when the byte there does not start one (overlong forms and surrogates too).
std::size_t DecodeUtf8(std::string_view text, std::size_t i, char32_t* code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  }
  // Lead byte ranges of 2-, 3- and 4-byte sequences, their payload bits and
  // the smallest code point each may encode.
  struct Form {
    unsigned char low, high, mask;
    std::size_t length;
    char32_t minimum;
  };
  static constexpr Form kForms[] = {
      {0xC2, 0xDF, 0x1F, 2, 0x80}, {0xE0, 0xEF, 0x0F, 3, 0x800}, {0xF0, 0xF4, 0x07, 4, 0x10000}};
  const Form* form = nullptr;
  for (const Form& f : kForms) {
    if (lead >= f.low && lead <= f.high) form = &f;
  }
  if (form == nullptr) return 0;
  const std::size_t length = form->length;
  char32_t value = lead & form->mask;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    value = (value << 6) | (byte(i + k) & 0x3Fu);
  }
  if (value < form->minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  *code_point = value;
  return length;
}

// Code points that move the cursor, start an escape or reorder text.
bool IsControl(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x200E || c == 0x200F || c == 0x2028 ||
         c == 0x2029 || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

std::string Escape(char32_t c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    default:
      break;
  }
  if (c < 0x80) return fmt::format("\\x{:02x}", static_cast<std::uint32_t>(c));
  return fmt::format("\\u{:04x}", static_cast<std::uint32_t>(c));
}

bool IsPlainAscii(std::string_view text) {
  for (char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x20 || b >= 0x7F) return false;
  }
  return true;
}

}  // namespace

std::string TerminalSafe(std::string_view text) {
  if (IsPlainAscii(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t length = DecodeUtf8(text, i, &c);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (IsControl(c)) {
      out += Escape(c);
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::size_t DisplayWidth(std::string_view text) {
  std::size_t width = 0;
  for (char ch : text) {
    if ((static_cast<unsigned char>(ch) & 0xC0u) != 0x80u) ++width;
  }
  return width;
}

}  // namespace hwrec::cli
