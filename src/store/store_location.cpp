// The public names of the PostgreSQL engine's URI rules (store/pg_connection.h).
#include "hwrec/store_location.h"

#include <fmt/format.h>

#include <cctype>

#include "store/pg_connection.h"

namespace hwrec {

bool IsPostgresqlLocation(std::string_view location) { return store::IsPostgresqlUri(location); }

std::string PrintableLocation(std::string_view location) {
  return IsPostgresqlLocation(location) ? store::RedactedUri(location) : std::string(location);
}

std::string RedactedMessage(std::string_view message, std::string_view location) {
  return store::RedactedText(message, location);
}

std::string PostgresqlLocationInSchema(std::string_view uri, std::string_view schema) {
  // A URI starts with its scheme (any case); key=value may hold "://" in a value.
  const std::string lowered = store::LibpqConninfo(uri);
  const bool is_uri =
      lowered.rfind("postgresql://", 0) == 0 || lowered.rfind("postgres://", 0) == 0;
  if (!is_uri) {  // key=value: a quoted value of its own
    std::string out(uri);
    out += " options='-csearch_path=";
    for (const char c : schema) {
      if (c == '\\' || c == '\'') out += '\\';
      out += c;
    }
    out += '\'';
    return out;
  }
  std::string out(uri);
  out += uri.find('?') == std::string_view::npos ? '?' : '&';
  out += "options=-csearch_path%3D";
  for (const char c : schema) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '_') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

}  // namespace hwrec
