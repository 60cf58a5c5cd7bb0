// What the files of the hwrec Python module share: how a Status becomes a
// Python exception, how a Store is claimed for one call at a time, and the
// registration functions each file provides to the module.
#pragma once

#include <pybind11/pybind11.h>

#include <unistd.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "hwrec/ingest.h"
#include "hwrec/placement.h"
#include "hwrec/recommend.h"
#include "hwrec/router.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::python {

namespace py = pybind11;

// A failed hwrec call; the module's translator raises the Python class of its code.
struct StatusError {
  Status status;
};
// A Store used while another call on it is under way.
struct ConcurrentUse {
  std::string message;
};
// A Store used after close().
struct ClosedStore {
  std::string message;
};
// A Store used in a process forked from the one that opened it.
struct ForkedStore {
  std::string message;
};

[[noreturn]] inline void ThrowStatus(const Status& status) { throw StatusError{status}; }

template <typename T>
T Unwrap(Result<T>&& result) {
  if (!result.ok()) ThrowStatus(result.status());
  return std::move(result).value();
}

inline void Check(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

// A Python str as UTF-8. One holding a lone surrogate has no UTF-8 form: it
// raises InvalidArgumentError naming it (`name()`, built only then, so that
// the hot paths pay nothing for the message).
template <typename Name>
std::string Utf8(PyObject* text, const Name& name) {
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
  if (utf8 == nullptr) {
    PyErr_Clear();
    ThrowStatus(Status::InvalidArgument(std::string(name()) +
                                        ": holds a lone surrogate, which is not text UTF-8 can "
                                        "carry: send valid Unicode text"));
  }
  return std::string(utf8, static_cast<std::size_t>(size));
}
inline std::string Utf8(const py::handle& text, const std::string& name) {
  return Utf8(text.ptr(), [&] { return name; });
}

// A message as Python shows it: bytes that are not UTF-8 (a file name it
// quotes) as \xNN.
inline py::str MessageText(const std::string& message) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
      message.data(), static_cast<Py_ssize_t>(message.size()), "backslashreplace"));
}

// A file path as Python names it: bytes that are not UTF-8 through surrogate
// escapes (os.fsdecode), so that a store at such a path reports on itself.
inline py::str PathText(const std::string& path) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size())));
}

// One opened store, with the query objects reused between calls. Its
// connection belongs to the process that opened it: in a process forked from
// that one, calls raise and closing forgets the connection without closing it
// (closing would end the opener's PostgreSQL session, or checkpoint and
// unlock a SQLite file the opener still uses).
struct PyStore {
  PyStore() = default;
  PyStore(const PyStore&) = delete;
  PyStore& operator=(const PyStore&) = delete;
  ~PyStore() {
    if (Forked()) Forget();
  }
  bool Forked() const { return ::getpid() != opener; }
  // Drops the connection and the objects reading through it, unclosed.
  void Forget() {
    (void)ingestor.release();
    (void)evaluator.release();
    (void)query.release();
    (void)store.release();
  }

  pid_t opener = ::getpid();
  std::unique_ptr<Store> store;
  std::unique_ptr<RecommendationQuery> query;     // made on first recommend
  std::unique_ptr<PlacementEvaluator> evaluator;  // made on first place; dropped by reload()
  std::unique_ptr<Ingestor> ingestor;  // the last ingest's, kept while its options repeat
  IngestOptions ingestor_options;
  std::atomic<bool> busy{false};
  std::string path;
  bool read_only = false;
};

// Claims a store for one call: raises ConcurrentUseError when another call
// holds it (another thread, or a launcher re-entering) and hwrec.Error when it
// is closed or was opened by the process this one was forked from. Taken
// with the GIL held, before it is released.
class Claim {
 public:
  explicit Claim(PyStore& store);
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;
  ~Claim() { store_.busy.store(false); }
  Store& store() { return *store_.store; }

 private:
  PyStore& store_;
};

// A dict (or any value) as JSON text; `what` names it in errors (json_text.cpp).
std::string ToJson(const py::handle& value, const std::string& what);
// The path named by a str or os.PathLike (a store's may be a postgresql:// URI).
std::string FsPath(const py::handle& path);
// A setting's value as the text `hwrec config set` takes: a number or a bool
// as its text (0.2 -> "0.2", True -> "true"), text as it is; `what` names it.
std::string ConfigValueText(const py::handle& value, const std::string& what);
// Optional epoch seconds from None, a number, or RFC 3339 text; `what` names the argument.
std::optional<double> EpochSeconds(const py::handle& value, const char* what);

void RegisterErrors(py::module_& m);
// Routes every function bound in `m` through a dispatcher whose argument
// errors name the argument and its type and quote no value (argument_errors.cpp).
// Called last, once everything is bound.
namespace argument_errors {
void GuardArgumentErrors(py::module_& m);
}
void RegisterStoreValues(py::module_& m);
void RegisterPlacementValues(py::module_& m);
void RegisterRouteValues(py::module_& m);
void RegisterAdminValues(py::module_& m);
void RegisterBacktestValues(py::module_& m);
void RegisterAdminFunctions(py::module_& m);
void RegisterStore(py::module_& m);
void RegisterFunctions(py::module_& m);

// Store methods defined by area, attached by RegisterStore.
void DefineQueryMethods(py::class_<PyStore, std::shared_ptr<PyStore>>& store);
void DefineRouteMethods(py::class_<PyStore, std::shared_ptr<PyStore>>& store);
void DefineAdminMethods(py::class_<PyStore, std::shared_ptr<PyStore>>& store);

}  // namespace hwrec::python
