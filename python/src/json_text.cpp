// Python values as JSON text for the parsers that read hwrec's JSON forms.
// Values JSON has no spelling for are converted the way a caller means them
// (a datetime as its ISO text, a numpy-style number as the number) or else
// spelt as their repr, so that the parser rejects that one field by name
// instead of the whole call failing.
#include "binding.h"

namespace hwrec::python {

namespace {

py::object PlainValue(const py::handle& value) {
  if (py::hasattr(value, "isoformat")) return value.attr("isoformat")();
  if (py::hasattr(value, "__index__")) return py::int_(py::reinterpret_borrow<py::object>(value));
  if (py::hasattr(value, "__float__")) {
    return py::float_(py::reinterpret_borrow<py::object>(value));
  }
  if (py::hasattr(value, "__fspath__")) return py::module_::import("os").attr("fspath")(value);
  return py::repr(value);
}

}  // namespace

// One encoder for the life of the interpreter (json.dumps would build one per
// call), made at import: a lazy static could deadlock two threads on the GIL.
const py::object* g_encode = nullptr;

void RegisterJson() {
  py::object encoder = py::module_::import("json").attr("JSONEncoder")(
      py::arg("default") = py::cpp_function(&PlainValue));
  g_encode = new py::object(encoder.attr("encode"));
}

std::string ToJson(const py::handle& value) { return (*g_encode)(value).cast<std::string>(); }

}  // namespace hwrec::python
