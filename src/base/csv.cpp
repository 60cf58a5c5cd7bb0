#include "base/csv.h"

#include <utility>

namespace hwrec::internal {

CsvReader::CsvReader(std::string text) : text_(std::move(text)) {
  if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;  // UTF-8 byte order mark
}

bool CsvReader::Next(CsvRecord* record) {
  if (pos_ >= text_.size()) return false;
  *record = CsvRecord{line_, {}, {}};
  std::string field;
  bool quoted = false;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '\n' || (c == '\r' && Peek(1) == '\n')) {
      pos_ += c == '\r' ? 2 : 1;
      ++line_;
      break;
    }
    ++pos_;
    if (c == ',') {
      record->fields.push_back(std::move(field));
      field.clear();
      quoted = false;
    } else if (c == '"' && field.empty() && !quoted) {
      quoted = true;
      if (!ReadQuoted(&field, record)) return true;
    } else if (quoted) {
      record->error = "has text after a closing quote: quote the whole field";
      SkipLine();
      return true;
    } else {
      field += c;
    }
  }
  record->fields.push_back(std::move(field));
  return true;
}

char CsvReader::Peek(std::size_t ahead) const {
  return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
}

bool CsvReader::ReadQuoted(std::string* field, CsvRecord* record) {
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (c == '"' && Peek(0) == '"') {
      *field += '"';
      ++pos_;
    } else if (c == '"') {
      return true;
    } else {
      if (c == '\n') ++line_;
      *field += c;
    }
  }
  record->error = "has a quote that is never closed: close it with \"";
  return false;
}

void CsvReader::SkipLine() {
  while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  if (pos_ < text_.size()) {
    ++pos_;
    ++line_;
  }
}

}  // namespace hwrec::internal
