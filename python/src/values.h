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
#include <type_traits>
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

// One read-only property of a result class: its Python name and the C++
// data member, member function or function of the value that gives it, and
// a doc string where the name alone does not say what it holds.
template <typename Getter>
struct Field {
  const char* name;
  Getter getter;
  const char* doc = nullptr;
};
template <typename Getter>
Field(const char*, Getter) -> Field<Getter>;
template <typename Getter>
Field(const char*, Getter, const char*) -> Field<Getter>;

// The whole of a result class: each field as a read-only property, in order
// (a data member through def_readonly, anything else through
// def_property_readonly), then to_dict and __repr__ from them
// (AddDictAndRepr).
template <typename Class, typename... Getters>
void DefineValues(Class& cls, const Field<Getters>&... fields) {
  auto define = [&cls](const auto& field) {
    constexpr bool kMember = std::is_member_object_pointer_v<std::decay_t<decltype(field.getter)>>;
    if constexpr (kMember) {
      if (field.doc == nullptr) {
        cls.def_readonly(field.name, field.getter);
      } else {
        cls.def_readonly(field.name, field.getter, field.doc);
      }
    } else if (field.doc == nullptr) {
      cls.def_property_readonly(field.name, field.getter);
    } else {
      cls.def_property_readonly(field.name, field.getter, field.doc);
    }
  };
  (define(fields), ...);
  AddDictAndRepr(cls);
}

}  // namespace hwrec::python
