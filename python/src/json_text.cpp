// Python values as JSON text for the parsers that read hwrec's JSON forms,
// built in C++ straight from the objects. Values JSON has no spelling for are
// converted the way a caller means them (a datetime as its ISO text, a
// numpy-style number as the number, a path as its text). A NaN or an infinity
// is data: it is written as the bare NaN / Infinity token hwrec's JSON reader
// rejects by field, so that record alone is refused and the others are kept.
// Anything else without a JSON form (bytes, a set, an arbitrary object, text
// with a lone surrogate, a key that is not text) is a caller's mistake: the
// call fails naming where the value is, before anything is written.
#include <cmath>
#include <nlohmann/json.hpp>

#include "binding.h"

namespace hwrec::python {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxDepth = 64;

// Stand-ins written into the tree, and their dumped spelling swapped for the
// bare tokens afterwards (control characters are escaped when dumped).
const std::string kNan = "\x02hwrec-python-nan\x02";
const std::string kInf = "\x02hwrec-python-inf\x02";
const std::string kNegInf = "\x02hwrec-python-neginf\x02";
constexpr std::string_view kNanDumped = R"("\u0002hwrec-python-nan\u0002")";
constexpr std::string_view kInfDumped = R"("\u0002hwrec-python-inf\u0002")";
constexpr std::string_view kNegInfDumped = R"("\u0002hwrec-python-neginf\u0002")";

// A value with no JSON form, and where it sits below the argument.
struct Unencodable {
  std::string path;
  std::string reason;
};

struct Writer {
  bool non_finite = false;

  Json NonFinite(double d) {
    non_finite = true;
    if (std::isnan(d)) return kNan;
    return d > 0 ? kInf : kNegInf;
  }

  static std::string Text(PyObject* value) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value, &size);
    if (text == nullptr) {
      PyErr_Clear();
      throw Unencodable{"",
                        "holds a lone surrogate, which is not text UTF-8 can carry: "
                        "send valid Unicode text"};
    }
    return std::string(text, static_cast<std::size_t>(size));
  }

  Json Number(PyObject* value) {
    int overflow = 0;
    const long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0) return n;
    const double d = PyLong_AsDouble(value);
    if (PyErr_Occurred() != nullptr) {
      PyErr_Clear();
      return NonFinite(overflow > 0 ? INFINITY : -INFINITY);  // beyond any double
    }
    return d;  // out of range for hwrec; the parser says so, naming the field
  }

  static py::object PlainValue(const py::handle& value) {
    if (py::hasattr(value, "isoformat")) return value.attr("isoformat")();
    if (py::hasattr(value, "__index__")) return py::int_(py::reinterpret_borrow<py::object>(value));
    if (py::hasattr(value, "__float__")) {
      return py::float_(py::reinterpret_borrow<py::object>(value));
    }
    if (py::hasattr(value, "__fspath__")) return py::module_::import("os").attr("fspath")(value);
    const std::string type = py::str(py::type::of(value).attr("__name__")).cast<std::string>();
    if (PyBytes_Check(value.ptr()) || PyByteArray_Check(value.ptr())) {
      throw Unencodable{"", "is " + type + ", which has no JSON form: decode it to str"};
    }
    throw Unencodable{"", "is a value of type '" + type +
                              "', which has no JSON form: send text, a number, a bool, None, a "
                              "list or a dict"};
  }

  Json Object(PyObject* o, int depth) {
    Json out = Json::object();
    PyObject* key = nullptr;
    PyObject* item = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &key, &item)) {
      if (!PyUnicode_Check(key)) {
        throw Unencodable{"", "has the key " + py::repr(key).cast<std::string>() +
                                  ", which is not text: JSON keys are strings"};
      }
      std::string name = Text(key);
      try {
        out[name] = Value(item, depth + 1);
      } catch (Unencodable& e) {
        e.path = "." + name + e.path;
        throw;
      }
    }
    return out;
  }

  Json Array(const py::handle& value, int depth) {
    Json out = Json::array();
    std::size_t i = 0;
    for (const py::handle item : value) {
      try {
        out.push_back(Value(item, depth + 1));
      } catch (Unencodable& e) {
        e.path = "[" + std::to_string(i) + "]" + e.path;
        throw;
      }
      ++i;
    }
    return out;
  }

  Json Value(const py::handle& value, int depth) {
    PyObject* o = value.ptr();
    if (depth > kMaxDepth) throw Unencodable{"", "is nested too deep"};
    if (o == Py_None) return nullptr;
    if (PyBool_Check(o)) return o == Py_True;
    if (PyLong_Check(o)) return Number(o);
    if (PyFloat_Check(o)) {
      const double d = PyFloat_AS_DOUBLE(o);
      return std::isfinite(d) ? Json(d) : NonFinite(d);
    }
    if (PyUnicode_Check(o)) return Text(o);
    if (PyDict_Check(o)) return Object(o, depth);
    if (PyList_Check(o) || PyTuple_Check(o)) return Array(value, depth);
    return Value(PlainValue(value), depth + 1);
  }
};

void ReplaceAll(std::string* text, std::string_view from, std::string_view to) {
  for (std::size_t at = text->find(from); at != std::string::npos;
       at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

}  // namespace

std::string ToJson(const py::handle& value, const std::string& what) {
  Writer writer;
  Json tree;
  try {
    tree = writer.Value(value, 0);
  } catch (Unencodable& e) {
    ThrowStatus(
        Status::InvalidArgument(what + e.path + ": " + e.reason + " (nothing was written)"));
  }
  std::string text = tree.dump(-1, ' ', false, Json::error_handler_t::strict);
  if (writer.non_finite) {
    ReplaceAll(&text, kNanDumped, "NaN");
    ReplaceAll(&text, kInfDumped, "Infinity");
    ReplaceAll(&text, kNegInfDumped, "-Infinity");
  }
  return text;
}

}  // namespace hwrec::python
