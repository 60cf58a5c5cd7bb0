// hwrec.Store: opening, status, migration, pools and ingest. Every call
// claims the store (one call at a time) and releases the GIL while C++ works.
#include <pybind11/stl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "binding.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"
#include "hwrec/refresh.h"
#include "hwrec/runner.h"
#include "hwrec/store_location.h"
#include "hwrec/time_text.h"
#include "lines_input.h"

namespace hwrec::python {

using PyStoreClass = py::class_<PyStore, std::shared_ptr<PyStore>>;

Claim::Claim(PyStore& store) : store_(store) {
  // First: a fork taken while another thread held the store leaves it busy.
  if (store.store && store.Forked()) {
    throw ForkedStore{"store " + store.path + " was opened in process " +
                      std::to_string(store.opener) + " and this is process " +
                      std::to_string(::getpid()) +
                      ", forked from it: a Store's connection cannot cross fork(); open a "
                      "new hwrec.Store(path) in this process (e.g. in the worker's initializer)"};
  }
  if (store.busy.exchange(true)) {
    throw ConcurrentUse{"store " + store.path +
                        " is in use by another call (another thread, or a launcher calling "
                        "back into it): a Store is one connection for one thread at a time; "
                        "open one Store per thread"};
  }
  if (!store.store) {
    store.busy.store(false);
    throw ClosedStore{"store " + store.path + " is closed: open it again with hwrec.Store(path)"};
  }
}

std::string FsPath(const py::handle& path) {
  const py::module_ os = py::module_::import("os");
  // The path's bytes as the file system names it (os.fsencode): a name that
  // is not UTF-8, read through surrogate escapes, opens the file it names.
  std::string text = os.attr("fsencode")(os.attr("fspath")(path)).cast<py::bytes>();
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    // Not quoted: the text before the NUL may be part of a location's password.
    ThrowStatus(Status::InvalidArgument("path holds a NUL character at byte " +
                                        std::to_string(nul) +
                                        ": give the file's path or the PostgreSQL location"));
  }
  return text;
}

std::optional<double> EpochSeconds(const py::handle& value, const char* what) {
  if (value.is_none()) return std::nullopt;
  if (py::hasattr(value, "timestamp")) {
    if (py::hasattr(value, "tzinfo") && value.attr("tzinfo").is_none()) {
      ThrowStatus(Status::InvalidArgument(std::string(what) +
                                          ": a datetime without a timezone is ambiguous: give it "
                                          "one (e.g. tzinfo=datetime.timezone.utc)"));
    }
    return value.attr("timestamp")().cast<double>();
  }
  if (py::isinstance<py::str>(value)) {
    const std::string text = Utf8(value, what);
    if (auto epoch = ParseTime(text)) return epoch;
    ThrowStatus(Status::InvalidArgument(std::string(what) + ": '" + text +
                                        "' is not an RFC 3339 time: use e.g. "
                                        "2026-11-29T16:02:37Z or epoch seconds"));
  }
  if (PyBool_Check(value.ptr())) {
    ThrowStatus(Status::InvalidArgument(std::string(what) +
                                        ": got a bool: give epoch seconds, RFC 3339 text or a "
                                        "datetime"));
  }
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    const double seconds = PyFloat_AsDouble(value.ptr());
    if (seconds == -1.0 && PyErr_Occurred() != nullptr) {
      PyErr_Clear();
      ThrowStatus(Status::InvalidArgument(std::string(what) +
                                          ": the number is out of range: give epoch seconds"));
    }
    return seconds;  // the library checks it is a time (finite, years 1970 to 9999)
  }
  ThrowStatus(Status::InvalidArgument(std::string(what) +
                                      ": expected epoch seconds, RFC 3339 text or a datetime"));
}

namespace {

void CloseStore(PyStore& s) {
  if (!s.store) return;
  if (s.Forked()) {  // the opener's connection: forgotten, not closed
    s.Forget();
    return;
  }
  Claim claim(s);
  py::gil_scoped_release release;
  s.ingestor.reset();
  s.evaluator.reset();
  s.query.reset();
  s.store.reset();
}

RecordForm FormOf(const std::string& text) {
  if (auto form = ParseRecordForm(text)) return *form;
  ThrowStatus(Status::InvalidArgument("form: '" + text +
                                      "' is not a record form: use auto, "
                                      "hwrec or runner"));
}

std::shared_ptr<PyStore> OpenStore(const py::handle& path, const StoreOptions& options) {
  auto out = std::make_shared<PyStore>();
  const std::string location = FsPath(path);  // a file path or a PostgreSQL location
  out->read_only = options.read_only;
  Result<std::unique_ptr<Store>> opened = [&] {
    py::gil_scoped_release release;
    return Store::Open(location, options);
  }();
  if (!opened.ok()) {  // never a secret of the location in what Python raises
    const Status& failed = opened.status();
    ThrowStatus(failed.WithMessage(RedactedMessage(failed.message(), location)));
  }
  out->store = std::move(opened).value();
  out->path = out->store->path();  // a location without its secrets: what reprs and errors show
  return out;
}

void DefineOpening(PyStoreClass& cls) {
  cls.def(py::init([](const py::object& path, bool read_only, int busy_timeout_ms) {
            StoreOptions options;
            options.read_only = read_only;
            options.busy_timeout_ms = busy_timeout_ms;
            return OpenStore(path, options);
          }),
          py::arg("path"), py::arg("read_only").noconvert() = false,
          py::arg("busy_timeout_ms") = 5000,
          "Opens an existing store: a file path (SQLite) or a PostgreSQL location (a "
          "postgresql:// URI or libpq key=value). "
          "NotFoundError when it is missing.")
      .def_static(
          "init",
          [](const py::object& path) {
            StoreOptions options;
            options.create_if_missing = true;
            return OpenStore(path, options);
          },
          py::arg("path"),
          "Creates a store at the latest schema (as `hwrec init`), or opens it: a file path or a "
          "PostgreSQL location (a postgresql:// URI or libpq key=value).")
      .def("close", &CloseStore,
           "Closes the store (again: nothing); later calls raise hwrec.Error. In a process "
           "forked from the one that opened it, forgets the connection without closing it.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyStore& s, const py::args&) { CloseStore(s); })
      .def_property_readonly(
          "path",
          [](const PyStore& s) {
            // The str the caller gave: file names that are not UTF-8
            // come back through surrogate escapes, as os.fsdecode does.
            return py::reinterpret_steal<py::str>(PyUnicode_DecodeFSDefaultAndSize(
                s.path.data(), static_cast<Py_ssize_t>(s.path.size())));
          })
      .def_property_readonly("read_only", [](const PyStore& s) { return s.read_only; })
      .def_property_readonly("closed", [](const PyStore& s) { return !s.store; })
      .def_property_readonly("schema_version", [](PyStore& s) {
        Claim claim(s);
        return claim.store().schema_version();
      });
}

void DefineUpkeep(PyStoreClass& cls) {
  cls.def("status",
          [](PyStore& s) {
            Claim claim(s);
            Result<StoreStatus> status = [&] {
              py::gil_scoped_release release;
              return claim.store().GetStatus();
            }();
            return Unwrap(std::move(status));
          })
      .def("migrate",
           [](PyStore& s) {
             Claim claim(s);
             Result<std::vector<int>> applied = [&] {
               py::gil_scoped_release release;
               s.evaluator.reset();
               s.query.reset();
               return claim.store().Migrate();
             }();
             return Unwrap(std::move(applied));
           })
      .def(
          "config",
          [](PyStore& s) {
            Claim claim(s);
            Result<std::vector<ConfigEntry>> entries = [&] {
              py::gil_scoped_release release;
              return ListConfig(claim.store());
            }();
            return Unwrap(std::move(entries));
          },
          "Every setting with its value, default and meaning (`hwrec config list`).")
      .def(
          "config_get",
          [](PyStore& s, const std::string& key) {
            Claim claim(s);
            Result<ConfigEntry> entry = [&] {
              py::gil_scoped_release release;
              return GetConfig(claim.store(), key);
            }();
            return Unwrap(std::move(entry));
          },
          py::arg("key"), "One setting (`hwrec config get KEY`); NotFoundError for an unknown key.")
      .def(
          "config_set",
          [](PyStore& s, const std::string& key, const py::object& value) {
            const std::string text = ConfigValueText(value, "value");
            Claim claim(s);
            const Status set = [&] {
              py::gil_scoped_release release;
              return SetConfig(claim.store(), key, text);
            }();
            Check(set);
          },
          py::arg("key"), py::arg("value"),
          "Sets one setting (`hwrec config set KEY VALUE`): a number, True/False or the text "
          "the CLI takes. The value, the aggregates it shapes and the recommendations change "
          "in one transaction; InvalidArgumentError names the allowed range.")
      .def(
          "refresh",
          [](PyStore& s, bool rebuild) {
            Claim claim(s);
            Result<std::int64_t> rows = [&] {
              py::gil_scoped_release release;
              return rebuild ? RebuildRecommendations(claim.store())
                             : RefreshRecommendations(claim.store());
            }();
            return Unwrap(std::move(rows));
          },
          py::arg("rebuild").noconvert() = false,
          "Recomputes the materialised recommendations (`hwrec refresh`); rebuild=True "
          "rebuilds the aggregates from the observations first (`--rebuild`). Returns the "
          "rows written.")
      .def(
          "reload",
          [](PyStore& s) {
            Claim claim(s);
            s.evaluator.reset();
          },
          "Drops what place() keeps between calls. Never needed for freshness: every call "
          "sees the pools, catalog and settings committed before it, by any process.");
}

void DefinePools(PyStoreClass& cls) {
  cls.def(
         "register_pools",
         [](PyStore& s, const py::object& pools, const std::string& form) {
           const RecordForm record_form = FormOf(form);
           Claim claim(s);
           const LinesInput input = ReadLines(pools, "pools");
           Result<PoolImportSummary> summary = WithLines(input, [&](std::istream& in) {
             return ImportNodePools(claim.store(), in, record_form);
           });
           s.evaluator.reset();
           return Unwrap(std::move(summary));
         },
         py::arg("pools"), py::arg("form") = "auto")
      .def("pools", [](PyStore& s) {
        Claim claim(s);
        Result<std::vector<NodePool>> pools = [&] {
          py::gil_scoped_release release;
          return ListNodePools(claim.store());
        }();
        return Unwrap(std::move(pools));
      });
}

IngestOptions ReadIngestOptions(const std::string& form, bool strict, std::int64_t batch_size,
                                const std::optional<std::string>& source) {
  IngestOptions options;
  options.form = FormOf(form);
  options.strict = strict;
  if (batch_size < 1) {
    ThrowStatus(Status::InvalidArgument("batch_size: is " + std::to_string(batch_size) +
                                        ": give 1 or more records a transaction"));
  }
  options.batch_size = static_cast<std::size_t>(batch_size);
  if (source) options.source = *source;
  return options;
}

bool SameOptions(const IngestOptions& a, const IngestOptions& b) {
  return a.form == b.form && a.strict == b.strict && a.batch_size == b.batch_size &&
         a.source == b.source;
}

void DefineIngest(PyStoreClass& cls) {
  cls.def(
      "ingest",
      [](PyStore& s, const py::object& records, const std::string& form, bool strict,
         std::int64_t batch_size, const std::optional<std::string>& source) {
        IngestOptions options = ReadIngestOptions(form, strict, batch_size, source);
        Claim claim(s);
        const LinesInput input = ReadLines(records, "records");
        if (!source && !input.path.empty()) options.source = input.path;
        Result<IngestSummary> summary = WithLines(input, [&](std::istream& in) {
          // Kept between calls with the same options: it keeps the catalog
          // and settings, read again when any writer changed them.
          if (!s.ingestor || !SameOptions(s.ingestor_options, options)) {
            auto opened = Ingestor::Open(claim.store(), options);
            if (!opened.ok()) return Result<IngestSummary>(opened.status());
            s.ingestor = std::move(opened).value();
            s.ingestor_options = options;
          }
          return s.ingestor->IngestJsonLines(in);
        });
        return Unwrap(std::move(summary));
      },
      py::arg("records"), py::arg("form") = "auto", py::arg("strict").noconvert() = false,
      py::arg("batch_size") = 10000, py::arg("source") = py::none());
}

}  // namespace

namespace {

void AppendRecord(const py::handle& record, const std::string& what, std::string* text) {
  if (!py::isinstance<py::dict>(record)) {
    throw py::type_error(what + ": expected a dict, got " +
                         py::str(py::type::of(record).attr("__name__")).cast<std::string>());
  }
  *text += ToJson(record, what);
  *text += '\n';
}

}  // namespace

LinesInput ReadLines(const py::handle& input, const char* what) {
  LinesInput out;
  // A dict (one record, the Runner's call) and a list or tuple of them are
  // told first: asking them for attributes they lack (__fspath__, read)
  // costs a raised and cleared AttributeError each.
  if (py::isinstance<py::dict>(input)) {
    AppendRecord(input, what, &out.text);
    return out;
  }
  const bool sequence = PyList_Check(input.ptr()) || PyTuple_Check(input.ptr());
  if (!sequence && (py::isinstance<py::str>(input) || py::hasattr(input, "__fspath__"))) {
    out.path = FsPath(input);
    return out;
  }
  if (!sequence && py::hasattr(input, "read")) {
    py::object text = input.attr("read")();
    if (py::isinstance<py::bytes>(text)) text = text.attr("decode")("utf-8");
    if (!py::isinstance<py::str>(text)) {
      throw py::type_error(std::string(what) + ": its read() returned " +
                           py::str(py::type::of(text).attr("__name__")).cast<std::string>() +
                           ": give a file opened for reading, in text or binary mode");
    }
    out.text = text.cast<std::string>();
    return out;
  }
  if (!sequence && !py::hasattr(input, "__iter__")) {
    throw py::type_error(std::string(what) +
                         ": expected a dict, an iterable of dicts, a path or a file object");
  }
  std::size_t i = 0;
  for (const py::handle record : input) {
    AppendRecord(record, std::string(what) + "[" + std::to_string(i++) + "]", &out.text);
  }
  return out;
}

void RegisterStore(py::module_& m) {
  PyStoreClass cls(m, "Store",
                   "One hwrec store: one connection for one thread at a time (a call made "
                   "while another is under way raises ConcurrentUseError). Open one Store per "
                   "thread.");
  DefineOpening(cls);
  DefineUpkeep(cls);
  DefinePools(cls);
  DefineIngest(cls);
  DefineQueryMethods(cls);
  DefineRouteMethods(cls);
  DefineAdminMethods(cls);
  cls.def("__repr__", [](const PyStore& s) {
    return "Store(path=" +
           py::repr(py::reinterpret_steal<py::str>(PyUnicode_DecodeFSDefaultAndSize(
                        s.path.data(), static_cast<Py_ssize_t>(s.path.size()))))
               .cast<std::string>() +
           (s.read_only ? ", read_only=True" : "") + (s.store ? "" : ", closed") + ")";
  });
}

}  // namespace hwrec::python
