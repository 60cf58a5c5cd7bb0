#include "store/backup.h"

#include "hwrec/remedy.h"
#include "store/database.h"

#include "store/sqlite_util.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "base/time.h"

namespace hwrec::internal {

namespace {

constexpr std::string_view kPartialMarker = ".partial-";

std::string Errno(const std::string& what) {
  return fmt::format("{}: {}", what, std::strerror(errno));
}

std::string DirectoryOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Another user who can write the directory could swap the backup for a link
// of their choosing between its steps, unless the sticky bit stops them.
Status CheckDirectory(const std::string& directory) {
  struct stat st {};
  if (stat(directory.c_str(), &st) != 0) return Status::IoError(Errno(directory));
  if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
    return Status::InvalidArgument(fmt::format(
        "{} can be written by every user and has no sticky bit, so another user could redirect "
        "the backup: keep the store in a directory only its owners can write (or chmod +t {}), "
        "or migrate with --no-backup after copying the store yourself",
        directory, directory));
  }
  return Status::Ok();
}

// The permission bits of the store, so that a backup is no more readable than it.
mode_t StoreMode(const std::string& store_path) {
  struct stat st {};
  if (stat(store_path.c_str(), &st) != 0) throw std::runtime_error(Errno(store_path));
  return st.st_mode & 0666;
}

// Whether the process that named a partial copy `….partial-<pid>` still runs
// (its backup is under way): its file is not a leftover.
bool WriterAlive(const std::string& name) {
  const std::size_t at = name.rfind(kPartialMarker);
  const std::string digits = name.substr(at + kPartialMarker.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  const long pid = std::strtol(digits.c_str(), nullptr, 10);
  if (pid <= 0 || pid == static_cast<long>(getpid())) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Temporary copies left by a killed backup of this store: regular files of
// this user named `<store>.<label>-…​.partial-<pid>` whose process is gone.
void RemoveStalePartials(const std::string& store_path, std::string_view label) {
  const std::filesystem::path store(store_path);
  const std::string directory = DirectoryOf(store_path);
  const std::string prefix = fmt::format("{}.{}-", store.filename().string(), label);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.find(kPartialMarker) == std::string::npos) continue;
    if (WriterAlive(name)) continue;
    struct stat st {};
    if (lstat(entry.path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
      unlink(entry.path().c_str());
    }
  }
}

void FsyncPath(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(Errno(path));
  const int synced = fsync(fd);
  close(fd);
  if (synced != 0) throw std::runtime_error(Errno(path));
}

// Creates `path` empty, exclusively, not through a link, with `mode`.
void CreateExclusive(const std::string& path, mode_t mode) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw std::runtime_error(Errno(path));
  const int changed = fchmod(fd, mode);  // the umask may have narrowed it
  close(fd);
  if (changed != 0) throw std::runtime_error(Errno(path));
}

// Links `partial` under the first free final name; link() never follows or
// replaces what is there, a dangling symlink included.
std::string LinkUnderFinalName(const std::string& partial, const std::string& base) {
  for (int n = 1;; ++n) {
    std::string candidate = n == 1 ? base : fmt::format("{}-{}", base, n);
    if (link(partial.c_str(), candidate.c_str()) == 0) return candidate;
    if (errno != EEXIST) throw std::runtime_error(Errno(candidate));
  }
}

}  // namespace

std::string NewestBackup(const std::string& store_path, std::string_view label) {
  const std::filesystem::path store(store_path);
  const std::string prefix = fmt::format("{}.{}-", store.filename().string(), label);
  std::string newest;
  std::filesystem::file_time_type newest_time;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(DirectoryOf(store_path), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.find(kPartialMarker) != std::string::npos) continue;
    if (!entry.is_regular_file(ec)) continue;
    const auto time = entry.last_write_time(ec);
    if (ec || (!newest.empty() && time < newest_time)) continue;
    newest = entry.path().string();
    newest_time = time;
  }
  return newest;
}

Status RefuseIfDamaged(SQLite::Database& db, const std::string& store_path,
                       std::string_view action) {
  std::string found;
  try {
    SQLite::Statement check(db, "PRAGMA quick_check(1)");
    if (check.executeStep() && check.getColumn(0).getString() != "ok") {
      found = check.getColumn(0).getString();
    }
  } catch (const SQLite::Exception& e) {
    found = e.what();
  }
  if (found.empty()) return Status::Ok();
  const std::string backup = NewestBackup(store_path);
  return Status::IoError(fmt::format(
      "{}: the store is damaged (PRAGMA quick_check: {}), so {} was refused and nothing "
      "changed: see what is damaged with {}, then restore the store from {}",
      store_path, found, action, RemedyText(Remedy::kCheck, store_path),
      backup.empty() ? std::string("a backup") : "its newest backup, " + backup));
}

std::string BackupStamp() { return CompactUtcStamp(NowEpochSeconds()); }

Result<std::string> WriteBackup(SQLite::Database& db, const std::string& store_path,
                                std::string_view label, std::string_view stamp) {
  const std::string directory = DirectoryOf(store_path);
  if (Status s = CheckDirectory(directory); !s.ok()) return s;
  if (Status s = RefuseIfDamaged(db, store_path, "the backup (and what was to follow it)"); !s.ok())
    return s;
  const std::string base = fmt::format("{}.{}-{}", store_path, label, stamp);
  const std::string partial = fmt::format("{}{}{}", base, kPartialMarker, getpid());
  try {
    const mode_t mode = StoreMode(store_path);
    RemoveStalePartials(store_path, label);
    CreateExclusive(partial, mode);
  } catch (const std::exception& e) {
    return Status::IoError(fmt::format("backup of {} not written: {}", store_path, e.what()));
  }
  try {
    SQLite::Statement vacuum(db, "VACUUM INTO ?");  // into the empty file made above
    vacuum.bind(1, partial);
    vacuum.exec();
    FsyncPath(partial, O_RDONLY | O_NOFOLLOW);
    const std::string final_name = LinkUnderFinalName(partial, base);
    unlink(partial.c_str());
    FsyncPath(directory, O_RDONLY | O_DIRECTORY);
    return final_name;
  } catch (const std::exception& e) {
    unlink(partial.c_str());
    return Status::IoError(fmt::format(
        "backup of {} not written ({}), and nothing of it is left: free space or fix the "
        "directory, then run again",
        store_path, e.what()));
  }
}

void RemoveStaleBackupPartials(const Store& store, std::string_view label) {
  if (store::ConnectionOf(store).engine() != store::Engine::kSqlite || store.path() == ":memory:") {
    return;
  }
  RemoveStalePartials(store.path(), label);
}

Result<std::string> WriteBackup(const Store& store, std::string_view label,
                                std::string_view stamp) {
  return WriteBackup(StoreAccess::Db(store), store.path(), label, stamp);
}

Status RefuseIfDamaged(const Store& store, std::string_view action) {
  // A PostgreSQL server checks its own pages; damage is a SQLite file's.
  if (store::ConnectionOf(store).engine() != store::Engine::kSqlite) return Status::Ok();
  return RefuseIfDamaged(StoreAccess::Db(store), store.path(), action);
}

}  // namespace hwrec::internal
