// The one way result values become plain data: to_dict and repr from the
// properties each class records (values.h).
#include "values.h"

#include <string>

namespace hwrec::python {

namespace {

constexpr const char* kFieldsAttr = "_hwrec_fields";

// The fields a value's class recorded, or None when it is not a result class.
py::object FieldsOf(const py::handle& value) {
  return py::getattr(py::type::handle_of(value), kFieldsAttr, py::none());
}

py::object Plain(const py::handle& value);

py::dict FieldsDict(const py::handle& self, const py::tuple& fields) {
  py::dict d;
  for (const py::handle& name : fields) d[name] = Plain(py::getattr(self, name));
  return d;
}

// Result objects through their fields, lists and dicts item by item; numbers,
// text, bools and None as they are.
py::object Plain(const py::handle& value) {
  if (value.is_none() || PyUnicode_Check(value.ptr()) || PyLong_Check(value.ptr()) ||
      PyFloat_Check(value.ptr())) {
    return py::reinterpret_borrow<py::object>(value);
  }
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    py::list out;
    for (const py::handle& item : value) out.append(Plain(item));
    return std::move(out);
  }
  if (PyDict_Check(value.ptr())) {
    py::dict out;
    for (const auto& [key, item] : py::reinterpret_borrow<py::dict>(value)) out[key] = Plain(item);
    return std::move(out);
  }
  py::object fields = FieldsOf(value);
  if (!fields.is_none()) return FieldsDict(value, fields.cast<py::tuple>());
  return py::reinterpret_borrow<py::object>(value);
}

// A field's value in a repr: a list of results shows its length, a dict of
// results each one's `value` (Recommendation.figures), a result its repr.
std::string ReprOfField(const py::handle& value) {
  if (PyList_Check(value.ptr()) && py::len(value) > 0 &&
      !FieldsOf(value.cast<py::list>()[0]).is_none()) {
    return "[" + std::to_string(py::len(value)) + " items]";
  }
  if (PyDict_Check(value.ptr()) && py::len(value) > 0) {
    py::dict values;
    for (const auto& [key, item] : py::reinterpret_borrow<py::dict>(value)) {
      if (FieldsOf(item).is_none() || !py::hasattr(item, "value")) return py::repr(value);
      values[key] = item.attr("value");
    }
    return py::repr(values).cast<std::string>();
  }
  return py::repr(value).cast<std::string>();
}

}  // namespace

py::dict HardwareKeyDict(const HardwareKey& k) {
  py::dict d;
  d["gpu_brand"] = Opt(k.gpu_brand);
  d["gpu_model"] = Opt(k.gpu_model);
  d["instance_type"] = Opt(k.instance_type);
  d["cpu_only"] = k.cpu_only;
  return d;
}

py::dict TableCountsDict(const std::vector<TableCount>& tables) {
  py::dict out;
  for (const TableCount& t : tables) out[py::str(t.table)] = t.rows;
  return out;
}

void AddDictAndRepr(py::object cls) {
  py::list names;
  py::object property = py::module_::import("builtins").attr("property");
  for (const auto& [name, member] : py::dict(cls.attr("__dict__"))) {
    const std::string text = name.cast<std::string>();
    if (!text.empty() && text[0] != '_' && py::isinstance(member, property)) names.append(name);
  }
  py::setattr(cls, kFieldsAttr, py::tuple(names));
  cls.attr("to_dict") = py::cpp_function(
      [](const py::object& self) { return FieldsDict(self, FieldsOf(self).cast<py::tuple>()); },
      py::is_method(cls), py::name("to_dict"),
      "The value as plain dicts and lists (JSON-serialisable).");
  cls.attr("__repr__") = py::cpp_function(
      [](const py::object& self) {
        std::string out = py::type::handle_of(self).attr("__name__").cast<std::string>() + "(";
        bool first = true;
        for (const py::handle& name : FieldsOf(self).cast<py::tuple>()) {
          if (!first) out += ", ";
          first = false;
          out += name.cast<std::string>() + "=" + ReprOfField(py::getattr(self, name));
        }
        return out + ")";
      },
      py::is_method(cls), py::name("__repr__"));
}

}  // namespace hwrec::python
