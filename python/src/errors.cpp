// hwrec.Error and one subclass per StatusCode, plus ConcurrentUseError; the
// C++ message is carried unchanged as `.message` and str(e). A class whose
// kind Python has a built-in exception for derives from it too
// (InvalidArgumentError is a ValueError, NotFoundError a LookupError), so
// that `except ValueError` catches hwrec's refusals as it catches Python's.
#include <pybind11/pybind11.h>

#include <array>
#include <string>

#include "binding.h"

namespace hwrec::python {

namespace {

struct ErrorClass {
  StatusCode code;
  const char* code_name;
  const char* class_name;
  PyObject* (*builtin)();  // the built-in exception it is also, or null
};

PyObject* ValueErrorClass() { return PyExc_ValueError; }
PyObject* LookupErrorClass() { return PyExc_LookupError; }

constexpr std::array<ErrorClass, 7> kErrorClasses{{
    {StatusCode::kInvalidArgument, "invalid_argument", "InvalidArgumentError", &ValueErrorClass},
    {StatusCode::kNotFound, "not_found", "NotFoundError", &LookupErrorClass},
    {StatusCode::kConflict, "conflict", "ConflictError", nullptr},
    {StatusCode::kSchemaMismatch, "schema_mismatch", "SchemaMismatchError", nullptr},
    {StatusCode::kReadOnly, "read_only", "ReadOnlyError", nullptr},
    {StatusCode::kIoError, "io_error", "IoError", nullptr},
    {StatusCode::kInternal, "internal", "InternalError", nullptr},
}};

PyObject* g_error = nullptr;
PyObject* g_concurrent = nullptr;
std::array<PyObject*, kErrorClasses.size()> g_classes{};

PyObject* NewClass(py::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string qualified = std::string("hwrec.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(cls));
  return cls;
}

// Raises `cls(message)` with `.code` and `.message` set.
// A message that quotes bytes which are not UTF-8 (a file name) shows them as \xNN.
void Raise(PyObject* cls, const char* code, const std::string& message) {
  const py::str text = MessageText(message);
  py::object error = py::reinterpret_borrow<py::object>(cls)(text);
  error.attr("code") = code;
  error.attr("message") = text;
  PyErr_SetObject(cls, error.ptr());
}

void Translate(std::exception_ptr exception) {
  try {
    if (exception) std::rethrow_exception(exception);
  } catch (const StatusError& e) {
    for (std::size_t i = 0; i < kErrorClasses.size(); ++i) {
      if (kErrorClasses[i].code == e.status.code()) {
        Raise(g_classes[i], kErrorClasses[i].code_name, e.status.message());
        return;
      }
    }
    Raise(g_error, "ok", e.status.message());
  } catch (const ConcurrentUse& e) {
    Raise(g_concurrent, "concurrent_use", e.message);
  } catch (const ClosedStore& e) {
    Raise(g_error, "closed", e.message);
  } catch (const ForkedStore& e) {
    Raise(g_error, "forked", e.message);
  } catch (const py::cast_error&) {
    // pybind11's own text names a C++ type and the build flags: say it in the caller's terms.
    PyErr_SetString(PyExc_TypeError,
                    "hwrec could not read a value given to it as the type it takes (e.g. text "
                    "that is not UTF-8, or a number out of range): see help() for the argument "
                    "types");
  }
}

}  // namespace

void RegisterErrors(py::module_& m) {
  g_error = NewClass(m, "Error", PyExc_Exception,
                     "An hwrec call failed: `.code` names the kind (\"invalid_argument\", ...), "
                     "`.message` is hwrec's message, also str(e).");
  PyObject_SetAttrString(g_error, "code", py::str("").ptr());
  PyObject_SetAttrString(g_error, "message", py::str("").ptr());
  for (std::size_t i = 0; i < kErrorClasses.size(); ++i) {
    const ErrorClass& c = kErrorClasses[i];
    if (c.builtin == nullptr) {
      g_classes[i] = NewClass(m, c.class_name, g_error, nullptr);
      continue;
    }
    const py::tuple bases = py::make_tuple(py::handle(g_error), py::handle(c.builtin()));
    g_classes[i] = NewClass(m, c.class_name, bases.ptr(), nullptr);
  }
  g_concurrent = NewClass(m, "ConcurrentUseError", g_error,
                          "A Store was used while another call on it was under way (from "
                          "another thread, or re-entered from a launcher). A Store is one "
                          "connection for one thread at a time: open one Store per thread.");
  // Local: hwrec's functions only; another module's errors stay its own.
  py::register_local_exception_translator(&Translate);
}

}  // namespace hwrec::python
