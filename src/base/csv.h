// A small RFC 4180 reader: comma-separated fields, double quotes around
// fields that hold commas, quotes ("" inside) or line breaks, CRLF or LF line
// ends, a leading UTF-8 byte order mark skipped. Each record says the physical
// line it starts on, for error messages. Not thread-safe; one reader per text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hwrec::internal {

struct CsvRecord {
  std::int64_t line = 0;  // 1-based physical line where the record starts
  std::vector<std::string> fields;
  std::string error;  // non-empty when the record is malformed (the rest of its line is skipped)
};

class CsvReader {
 public:
  explicit CsvReader(std::string text);

  // The next record; false at the end of the text.
  bool Next(CsvRecord* record);

 private:
  char Peek(std::size_t ahead) const;
  // Reads a quoted field's content after its opening quote, up to the closing one.
  bool ReadQuoted(std::string* field, CsvRecord* record);
  void SkipLine();

  std::string text_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
};

}  // namespace hwrec::internal
