// How result values leave the module: one mechanism for every class. A class
// exposes the C++ struct's fields as read-only properties; AddDictAndRepr then
// records those properties, in the order they were defined, and gives the class
// `to_dict()` (plain dicts and lists, JSON-serialisable, nested values through
// their own to_dict) and a `repr` built from it. A field bound as a property
// reaches both without another entry.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/hardware_key.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/store.h"

namespace hwrec::python {

namespace py = pybind11;

// An enum's name (from ToString) as an owned string.
inline std::string Name(std::string_view text) { return std::string(text); }

template <typename T>
py::object Opt(const std::optional<T>& value) {
  return value ? py::cast(*value) : py::none();
}

py::dict ProfileDict(const HardwareProfile& profile);
// A hardware key as the dict recommend's and the backtest's results give.
py::dict HardwareKeyDict(const HardwareKey& key);
// Row counts by table name.
py::dict TableCountsDict(const std::vector<TableCount>& tables);

// Records the public properties `cls` has now as its fields and defines
// to_dict and __repr__ from them. Call it after the last property.
void AddDictAndRepr(py::object cls);

}  // namespace hwrec::python
