#include "store/store_file.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "hwrec/remedy.h"

namespace hwrec::internal {

namespace {

namespace fs = std::filesystem;

std::string ParentDirectory(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::uintmax_t SizeOr0(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

bool DiskFull(const std::string& path) {
  std::error_code ec;
  const fs::space_info space = fs::space(ParentDirectory(path), ec);
  return !ec && space.available <
                    std::uintmax_t{64} * 1024;  // less than SQLite needs for a page and its journal
}

std::string NotAStore(const std::string& path, const std::string& found) {
  return fmt::format(
      "{}: this SQLite database is not an hwrec store ({}); hwrec left it unchanged: give the "
      "path of an hwrec store, or create one at a new path with {}",
      path, found, RemedyText(Remedy::kInit));
}

std::string ListNames(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 5; ++i) out += (i > 0 ? ", " : "") + names[i];
  return names.size() > 5 ? out + ", ..." : out;
}

bool HasBookkeepingColumns(SQLite::Database& db) {
  int found = 0;
  SQLite::Statement columns(db, "SELECT name FROM pragma_table_info('schema_migrations')");
  while (columns.executeStep()) {
    const std::string name = columns.getColumn(0).getString();
    found += name == "version" || name == "name" || name == "checksum" || name == "applied_at";
  }
  return found == 4;
}

}  // namespace

namespace {

// Where a store may be made: never through a symbolic link at the final
// component, nor in an empty file of another user: in a shared directory
// either may have been planted to make this user write where it should not.
// (The open itself refuses a link that appears later: SQLITE_OPEN_NOFOLLOW.)
Status CheckCreatePath(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Status::Ok();  // nothing there yet
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    return Status::InvalidArgument(fmt::format(
        "{} is a symbolic link (to {}): hwrec makes a store only at a path that is no link, "
        "since another user may have planted it: give the path the store should have, or "
        "remove the link",
        path, ec ? std::string("?") : target.string()));
  }
  if (S_ISREG(st.st_mode) && st.st_size == 0 && st.st_uid != geteuid()) {
    return Status::InvalidArgument(fmt::format(
        "{} is an empty file of another user (uid {}): hwrec makes a store only in a new file or "
        "an empty one of this user: remove it, or choose another path",
        path, st.st_uid));
  }
  return Status::Ok();
}

}  // namespace

Status CheckStorePath(const std::string& path, bool create) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) {
    return Status::InvalidArgument(fmt::format(
        "{} is a directory, not a store file: give the path of the store file in it, or create "
        "one with {}",
        path, RemedyText(Remedy::kInit, (fs::path(path) / "hwrec.db").string())));
  }
  if (create) return CheckCreatePath(path);
  if (!fs::exists(status)) {
    return Status::NotFound(fmt::format("no hwrec store at {}: create it with {}", path,
                                        RemedyText(Remedy::kInit, path)));
  }
  if (fs::is_regular_file(status) && SizeOr0(path) == 0 && SizeOr0(path + "-wal") == 0) {
    return Status::NotFound(
        fmt::format("no hwrec store at {} (the file is empty): create it with {}", path,
                    RemedyText(Remedy::kInit, path)));
  }
  return Status::Ok();
}

Result<DatabaseKind> RecognizeStore(SQLite::Database& db, const std::string& path) {
  const int user_version = db.execAndGet("PRAGMA user_version").getInt();
  std::vector<std::string> tables;
  SQLite::Statement list(db,
                         "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                         "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
  bool bookkeeping = false;
  while (list.executeStep()) {
    tables.push_back(list.getColumn(0).getString());
    bookkeeping = bookkeeping || tables.back() == "schema_migrations";
  }
  if (tables.empty() && user_version == 0) return DatabaseKind::kEmpty;
  if (bookkeeping && HasBookkeepingColumns(db)) return DatabaseKind::kStore;
  if (bookkeeping) {
    return Status::InvalidArgument(NotAStore(
        path,
        "its schema_migrations table lacks hwrec's version, name, checksum and applied_at "
        "columns: another program's migrations"));
  }
  if (tables.empty()) {
    return Status::InvalidArgument(
        NotAStore(path, fmt::format("user_version {} and no tables", user_version)));
  }
  return Status::InvalidArgument(
      NotAStore(path, fmt::format("{} table(s): {}; and no schema_migrations table", tables.size(),
                                  ListNames(tables))));
}

Status CheckCanWrite(SQLite::Database& db, const std::string& path) {
  const bool file_read_only = sqlite3_db_readonly(db.getHandle(), "main") == 1;
  std::error_code ec;
  const bool wal_missing = !fs::exists(path + "-wal", ec);
  if (!file_read_only && !(wal_missing && access(ParentDirectory(path).c_str(), W_OK) != 0)) {
    return Status::Ok();
  }
  return DescribeOpenFailure(
      path, SQLITE_READONLY,
      file_read_only ? "the file is read-only" : "the directory is read-only", false);
}

namespace {

// "<path>: <what> (SQLite: <sqlite_text>): <fix>", as kIoError.
Status IoFailure(const std::string& path, std::string_view what, const std::string& sqlite_text,
                 const std::string& fix) {
  return Status::IoError(fmt::format("{}: {} (SQLite: {}): {}", path, what, sqlite_text, fix));
}

}  // namespace

Status DescribeOpenFailure(const std::string& path, int extended_code,
                           const std::string& sqlite_text, bool disk_full) {
  const std::string dir = ParentDirectory(path);
  const int primary = extended_code & 0xff;
  if (primary == SQLITE_FULL || (primary == SQLITE_IOERR && disk_full)) {
    return IoFailure(
        path, "the disk holding the store is full", sqlite_text,
        fmt::format("free space in {} and run again; what was committed is safe", dir));
  }
  if (primary == SQLITE_NOTADB) {
    return Status::InvalidArgument(fmt::format(
        "{}: the file is not an SQLite database, so not an hwrec store; hwrec left it unchanged: "
        "give the path of an hwrec store, or create one at a new path with {}",
        path, RemedyText(Remedy::kInit)));
  }
  if (primary == SQLITE_READONLY) {
    return Status::ReadOnly(fmt::format(
        "{}: this user cannot write the store or its directory {}: run as a user who can, fix "
        "the permissions, or for commands that only read add --read-only",
        path, dir));
  }
  if (primary == SQLITE_CANTOPEN) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      return Status::NotFound(fmt::format(
          "{}: cannot open the store: the directory {} does not exist: create it or fix the path",
          path, dir));
    }
    if (!fs::exists(path, ec)) {
      return Status::ReadOnly(fmt::format(
          "{}: cannot create the store: this user cannot write the directory {}: choose a "
          "writable directory or fix its permissions",
          path, dir));
    }
    return IoFailure(path, "cannot open the store", sqlite_text,
                     fmt::format("check that this user may read the file and write its directory "
                                 "{}; on read-only media add --read-only",
                                 dir));
  }
  if (primary == SQLITE_IOERR) {
    return IoFailure(path, "the file system reported an I/O error while opening the store",
                     sqlite_text,
                     fmt::format("check the disk holding {} and its free space, then run again; "
                                 "for read-only media add --read-only",
                                 dir));
  }
  return Status::IoError(path + ": " + sqlite_text);
}

Status DescribeOpenFailure(const std::string& path, const SQLite::Exception& error) {
  return DescribeOpenFailure(path, error.getExtendedErrorCode(), error.what(), DiskFull(path));
}

bool MayOpenImmutable(int extended_code) {
  const int primary = extended_code & 0xff;
  return primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR ||
         primary == SQLITE_FULL;
}

namespace {

bool NonEmptyFile(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return !ec && size > 0;
}

}  // namespace

std::optional<std::string> ImmutableWouldMislead(const std::string& path) {
  if (NonEmptyFile(path + "-journal")) {
    return fmt::format(
        "{}: an interrupted write left {}-journal, which must be rolled back before the store "
        "can be read, and this open may not write (it is read-only, or this user cannot write "
        "the store's directory): open it once for writing, not read-only ({}), as a user who can "
        "write the store and its directory",
        path, path, RemedyText(Remedy::kStatusWritable, path));
  }
  if (NonEmptyFile(path + "-wal")) {
    return fmt::format(
        "{}: {}-wal holds changes not yet in the store file, and this user cannot open the "
        "store's WAL index here: run any hwrec command on it as a user who can write its "
        "directory, or copy the store with its -wal to a directory this user can write",
        path, path);
  }
  return std::nullopt;
}

std::string ImmutableReason(const std::string& path, const std::string& sqlite_text) {
  if (access(ParentDirectory(path).c_str(), W_OK) != 0) return "the directory cannot be written";
  return "SQLite could not make the WAL index: " + sqlite_text;
}

std::string ImmutableUri(const std::string& path) {
  std::string uri = fs::path(path).is_absolute() ? "file://" : "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace hwrec::internal
