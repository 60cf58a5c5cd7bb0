// LineReader: reads text lines from a stream with a bound on their length, for
// the JSON-lines readers (observations, node pools). A line ends at LF, CRLF
// or a lone CR (old Mac files); the part of a line past the bound is skipped
// without being held in memory. One reader per stream; not thread-safe.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace hwrec::internal {

class LineReader {
 public:
  LineReader(std::istream& in, std::size_t max_line_bytes);

  // Reads the next line into `line` (without its ending); false at the end of
  // the input. A line longer than the bound keeps only its first
  // max_line_bytes bytes in `line`, and truncated() is true.
  bool Next(std::string* line);
  bool truncated() const { return length_ > max_; }
  // Bytes of the last line, its ending excluded, also when truncated.
  std::size_t length() const { return length_; }
  std::size_t max_line_bytes() const { return max_; }

 private:
  std::istream& in_;
  std::size_t max_;
  std::size_t length_ = 0;
};

}  // namespace hwrec::internal
