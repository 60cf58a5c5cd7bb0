// The public names of the PostgreSQL engine's URI rules (store/pg_connection.h).
#include "hwrec/store_location.h"

#include "store/pg_connection.h"

namespace hwrec {

bool IsPostgresqlLocation(std::string_view location) { return store::IsPostgresqlUri(location); }

std::string PrintableLocation(std::string_view location) {
  return IsPostgresqlLocation(location) ? store::RedactedUri(location) : std::string(location);
}

}  // namespace hwrec
