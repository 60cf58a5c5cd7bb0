// Python values as JSON text for the parsers that read hwrec's JSON forms,
// built in C++ straight from the objects. Values JSON has no spelling for are
// converted the way a caller means them (a datetime as its ISO text, a
// numpy-style number as the number) or else spelt as their repr, and a NaN or
// an infinity as its repr text, so that the parser rejects that one field by
// name instead of the whole call failing.
#include <cmath>
#include <nlohmann/json.hpp>

#include "binding.h"

namespace hwrec::python {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxDepth = 64;

py::object PlainValue(const py::handle& value) {
  if (py::hasattr(value, "isoformat")) return value.attr("isoformat")();
  if (py::hasattr(value, "__index__")) return py::int_(py::reinterpret_borrow<py::object>(value));
  if (py::hasattr(value, "__float__")) {
    return py::float_(py::reinterpret_borrow<py::object>(value));
  }
  if (py::hasattr(value, "__fspath__")) return py::module_::import("os").attr("fspath")(value);
  return py::repr(value);
}

std::string Text(PyObject* value) {
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(value, &size);
  if (text != nullptr) return std::string(text, static_cast<std::size_t>(size));
  PyErr_Clear();  // a lone surrogate: keep its escaped spelling
  return py::repr(value).cast<std::string>();
}

Json Number(PyObject* value) {
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow == 0) return n;
  const double d = PyLong_AsDouble(value);
  if (PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    return py::repr(py::handle(value)).cast<std::string>();
  }
  return d;  // out of range for hwrec; the parser says so, naming the field
}

Json Value(const py::handle& value, int depth) {
  PyObject* o = value.ptr();
  if (depth > kMaxDepth) ThrowStatus(Status::InvalidArgument("a value is nested too deep"));
  if (o == Py_None) return nullptr;
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) return Number(o);
  if (PyFloat_Check(o)) {
    const double d = PyFloat_AS_DOUBLE(o);
    return std::isfinite(d) ? Json(d) : Json(py::repr(value).cast<std::string>());
  }
  if (PyUnicode_Check(o)) return Text(o);
  if (PyDict_Check(o)) {
    Json out = Json::object();
    PyObject* key = nullptr;
    PyObject* item = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &key, &item)) {
      const std::string name =
          PyUnicode_Check(key) ? Text(key) : py::str(py::handle(key)).cast<std::string>();
      out[name] = Value(item, depth + 1);
    }
    return out;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    Json out = Json::array();
    for (const py::handle item : value) out.push_back(Value(item, depth + 1));
    return out;
  }
  return Value(PlainValue(value), depth + 1);
}

}  // namespace

std::string ToJson(const py::handle& value) {
  return Value(value, 0).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace hwrec::python
