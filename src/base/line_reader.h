// LineReader: reads text lines from a stream or a file descriptor with a bound
// on their length, for the JSON-lines readers (observations, node pools). A
// line ends at LF, CRLF or a lone CR (old Mac files); the part of a line past
// the bound is skipped without being held in memory. Reading from a
// descriptor can wait for input with a time bound (a pipe that pauses), so a
// caller can act on what has arrived. One reader per input; not thread-safe.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace hwrec::internal {

class LineReader {
 public:
  LineReader(std::istream& in, std::size_t max_line_bytes);
  // Reads `fd` (not owned, e.g. stdin) through the reader's own buffer.
  LineReader(int fd, std::size_t max_line_bytes);
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader() = default;

  enum class Outcome { kLine, kEnd, kPaused };

  // Reads the next line into `line` (without its ending); false at the end of
  // the input. A line longer than the bound keeps only its first
  // max_line_bytes bytes in `line`, and truncated() is true.
  bool Next(std::string* line);
  // As Next, but returns kPaused when a descriptor gives no byte for
  // `wait_ms` milliseconds (-1: no bound); a line cut by the pause is
  // continued by the next call. A stream never pauses.
  Outcome NextWithin(std::string* line, int wait_ms);
  bool truncated() const { return length_ > max_; }
  // Bytes of the last line, its ending excluded, also when truncated.
  std::size_t length() const { return length_; }
  std::size_t max_line_bytes() const { return max_; }
  // True when reading failed (the input ended by an error, not its end).
  bool failed() const;

 private:
  static constexpr int kEnd = -1;
  static constexpr int kPaused = -2;
  int ReadByte(int wait_ms);  // a byte as unsigned char, or kEnd / kPaused
  int ReadFromStream();
  int ReadFromDescriptor(int wait_ms);

  std::istream* in_ = nullptr;
  int fd_ = -1;
  std::size_t max_;
  std::size_t length_ = 0;
  std::string buffer_;  // bytes read from fd_ not yet consumed
  std::size_t position_ = 0;
  std::string current_;  // the line being read, kept across a pause
  std::size_t current_length_ = 0;
  bool current_started_ = false;
  bool after_cr_ = false;  // the last line ended at CR: a LF right after it belongs to it
  bool failed_ = false;
};

}  // namespace hwrec::internal
