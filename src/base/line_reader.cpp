#include "base/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace hwrec::internal {

namespace {
constexpr std::size_t kReadChunkBytes = 65536;
}  // namespace

LineReader::LineReader(std::istream& in, std::size_t max_line_bytes)
    : in_(&in), max_(max_line_bytes) {}

LineReader::LineReader(int fd, std::size_t max_line_bytes) : fd_(fd), max_(max_line_bytes) {}

bool LineReader::failed() const { return failed_ || (in_ != nullptr && in_->bad()); }

int LineReader::ReadFromStream() {
  using Traits = std::istream::traits_type;
  std::streambuf* buffer = in_->rdbuf();
  if (buffer == nullptr || !in_->good()) return kEnd;
  const Traits::int_type c = buffer->sbumpc();
  if (Traits::eq_int_type(c, Traits::eof())) {
    in_->setstate(std::ios::eofbit);
    return kEnd;
  }
  return static_cast<unsigned char>(Traits::to_char_type(c));
}

int LineReader::ReadFromDescriptor(int wait_ms) {
  while (position_ == buffer_.size()) {
    if (failed_ || fd_ < 0) return kEnd;
    pollfd watched{fd_, POLLIN, 0};
    const int ready = poll(&watched, 1, wait_ms);
    if (ready == 0) return kPaused;
    if (ready < 0 && errno == EINTR) continue;
    buffer_.resize(kReadChunkBytes);
    const ssize_t got = ready < 0 ? -1 : read(fd_, buffer_.data(), buffer_.size());
    if (got < 0) {
      buffer_.clear();
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      failed_ = true;
      return kEnd;
    }
    buffer_.resize(static_cast<std::size_t>(got));
    position_ = 0;
    if (got == 0) {
      fd_ = -1;  // the end of the input: nothing more to wait for
      return kEnd;
    }
  }
  return static_cast<unsigned char>(buffer_[position_++]);
}

int LineReader::ReadByte(int wait_ms) {
  return in_ != nullptr ? ReadFromStream() : ReadFromDescriptor(wait_ms);
}

bool LineReader::Next(std::string* line) { return NextWithin(line, -1) == Outcome::kLine; }

LineReader::Outcome LineReader::NextWithin(std::string* line, int wait_ms) {
  line->clear();
  for (;;) {
    const int c = ReadByte(wait_ms);
    if (c == kPaused) return Outcome::kPaused;
    const bool ended = c == kEnd && current_started_;
    if (c == kEnd && !ended) return Outcome::kEnd;
    const char ch = static_cast<char>(c);
    if (!ended && after_cr_ && ch == '\n') {
      after_cr_ = false;  // CRLF is one ending
      continue;
    }
    after_cr_ = false;
    if (ended || ch == '\n' || ch == '\r') {
      // A lone CR ends the line too; a LF right after it is skipped next time,
      // without waiting for it now.
      after_cr_ = ch == '\r' && !ended;
      line->swap(current_);
      current_.clear();
      length_ = current_length_;
      current_length_ = 0;
      current_started_ = false;
      return Outcome::kLine;
    }
    current_started_ = true;
    if (current_length_ < max_) current_.push_back(ch);
    ++current_length_;
  }
}

}  // namespace hwrec::internal
