// How result values leave the module: every class gets `to_dict()` (plain
// dicts and lists, JSON-serialisable) and a `repr` built from it.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/hardware_profile.h"

namespace hwrec::python {

namespace py = pybind11;

// An enum's name (from ToString) as an owned string.
inline std::string Name(std::string_view text) { return std::string(text); }

template <typename T>
py::object Opt(const std::optional<T>& value) {
  return value ? py::cast(*value) : py::none();
}

// A list of each item's to_dict.
template <typename T, typename Fn>
py::list DictList(const std::vector<T>& items, Fn&& to_dict) {
  py::list out;
  for (const T& item : items) out.append(to_dict(item));
  return out;
}

// "Name(key=value, ...)": lists of dicts show as their length, a dict of
// figures as each figure's value.
std::string ReprOf(const char* name, const py::dict& fields);

py::dict ProfileDict(const HardwareProfile& profile);

template <typename T, typename... Extra>
void AddDictAndRepr(py::class_<T, Extra...>& cls, const char* name, py::dict (*to_dict)(const T&)) {
  cls.def("to_dict", to_dict, "The value as plain dicts and lists (JSON-serialisable).");
  cls.def("__repr__", [name, to_dict](const T& value) { return ReprOf(name, to_dict(value)); });
}

}  // namespace hwrec::python
