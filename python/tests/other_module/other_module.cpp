// Another pybind11 extension loaded beside hwrec, as a service loads several:
// hwrec's error translation must leave this module's errors as pybind11
// raises them (test_errors_of_other_modules.py).
#include <pybind11/pybind11.h>

namespace py = pybind11;

PYBIND11_MODULE(hwrec_test_other_module, m) {
  m.def(
      "cast_fails", [] { return py::cast<int>(py::str("not a number")); },
      "Raises pybind11's cast_error, which pybind11 reports as RuntimeError.");
}
