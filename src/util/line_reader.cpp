#include "util/line_reader.h"

namespace hwrec::internal {

LineReader::LineReader(std::istream& in, std::size_t max_line_bytes)
    : in_(in), max_(max_line_bytes) {}

bool LineReader::Next(std::string* line) {
  using Traits = std::istream::traits_type;
  line->clear();
  length_ = 0;
  std::streambuf* buffer = in_.rdbuf();
  if (buffer == nullptr || !in_.good()) return false;
  bool read_any = false;
  for (;;) {
    const Traits::int_type c = buffer->sbumpc();
    if (Traits::eq_int_type(c, Traits::eof())) {
      in_.setstate(std::ios::eofbit);
      return read_any;
    }
    read_any = true;
    const char ch = Traits::to_char_type(c);
    if (ch == '\n') return true;
    if (ch == '\r') {
      // CRLF is one ending; a lone CR ends the line too.
      if (Traits::eq_int_type(buffer->sgetc(), Traits::to_int_type('\n'))) buffer->sbumpc();
      return true;
    }
    if (length_ < max_) line->push_back(ch);
    ++length_;
  }
}

}  // namespace hwrec::internal
