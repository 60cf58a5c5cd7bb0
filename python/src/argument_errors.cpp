// Argument errors that name the argument and never echo a value. When no
// signature of a bound function accepts a call, pybind11 raises a TypeError
// that quotes every argument's repr: a store's URI with its password, or a
// megabyte of text. The module's functions are routed once, at import, through
// a dispatcher that leaves successful calls alone (one more C call) and
// rewrites that one message: which argument, which type it takes, which type
// it got, and no value.
#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binding.h"

namespace hwrec::python::argument_errors {

namespace {

// pybind11's dispatcher, the one function behind every bound callable.
struct Pybind11Function : py::cpp_function {
  static PyCFunctionWithKeywords Dispatcher() { return &Pybind11Function::dispatcher; }
};

// The display name of each bound function, by the capsule pybind11 gives it
// as `self`: "hwrec.Store.recommend", "hwrec.Store()".
std::unordered_map<PyObject*, std::string>& Names() {
  static auto* names = new std::unordered_map<PyObject*, std::string>();
  return *names;
}

struct Parameter {
  std::string name;
  std::string type;
  bool has_default = false;
  bool keyword_only = false;
};

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// Splits at `separator` outside brackets and quotes.
std::vector<std::string_view> SplitTopLevel(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  int depth = 0;
  char quote = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if (c == ']' || c == ')' || c == '}') {
      --depth;
    } else if (depth == 0 && text.compare(i, separator.size(), separator) == 0) {
      parts.push_back(text.substr(begin, i - begin));
      begin = i + separator.size();
      i = begin - 1;
    }
  }
  parts.push_back(text.substr(begin));
  return parts;
}

// The parameters of one signature line, "(self: hwrec._hwrec.Store, image:
// str, *, width: Optional[int] = None) -> dict" or, for a constructor,
// "hwrec._hwrec.Store(path: object, ...)" (pybind11 drops `self` there).
std::vector<Parameter> ParametersOf(std::string_view signature) {
  std::vector<Parameter> out;
  const std::size_t open = signature.find('(');
  if (open == std::string_view::npos) return out;
  int depth = 0;
  std::size_t close = open;
  for (; close < signature.size(); ++close) {
    if (signature[close] == '(') ++depth;
    if (signature[close] == ')' && --depth == 0) break;
  }
  const std::string_view list = signature.substr(open + 1, close - open - 1);
  if (Trim(list).empty()) return out;
  bool keyword_only = false;
  for (std::string_view part : SplitTopLevel(list, ",")) {
    part = Trim(part);
    if (part == "*") {
      keyword_only = true;
      continue;
    }
    if (part.rfind('*', 0) == 0) continue;  // *args, **kwargs: take anything
    Parameter p;
    const std::vector<std::string_view> with_default = SplitTopLevel(part, " = ");
    p.has_default = with_default.size() > 1;
    const std::string_view declared = with_default.front();
    const std::size_t colon = declared.find(':');
    p.name = std::string(Trim(declared.substr(0, colon)));
    if (colon != std::string_view::npos) p.type = std::string(Trim(declared.substr(colon + 1)));
    p.keyword_only = keyword_only;
    out.push_back(std::move(p));
  }
  return out;
}

enum class Fit { kYes, kNo, kUnknown };

bool IsPlainValue(PyObject* value) {
  return value == Py_None || PyUnicode_Check(value) || PyBytes_Check(value) ||
         PyLong_Check(value) || PyFloat_Check(value) || PyDict_Check(value) ||
         PyList_Check(value) || PyTuple_Check(value);
}

// Whether `value` can be what `type` (pybind11's name for it) reads; kUnknown
// where only the conversion itself could tell (a list's items, a class).
Fit Fits(std::string_view type, PyObject* value) {
  type = Trim(type);
  if (type.empty() || type == "object" || type == "handle") return Fit::kYes;
  const auto wrapped = [&](std::string_view prefix) {
    return type.rfind(prefix, 0) == 0 && type.back() == ']'
               ? type.substr(prefix.size(), type.size() - prefix.size() - 1)
               : std::string_view();
  };
  if (std::string_view inner = wrapped("Optional["); !inner.empty()) {
    return value == Py_None ? Fit::kYes : Fits(inner, value);
  }
  if (std::string_view inner = wrapped("Union["); !inner.empty()) {
    Fit fit = Fit::kNo;
    for (std::string_view member : SplitTopLevel(inner, ",")) {
      const Fit one = Fits(member, value);
      if (one == Fit::kYes) return Fit::kYes;
      if (one == Fit::kUnknown) fit = Fit::kUnknown;
    }
    return fit;
  }
  if (type == "None") return value == Py_None ? Fit::kYes : Fit::kNo;
  if (type == "str") return PyUnicode_Check(value) || PyBytes_Check(value) ? Fit::kYes : Fit::kNo;
  if (type == "bool") return PyBool_Check(value) ? Fit::kYes : Fit::kNo;
  if (type == "int") {
    if (PyLong_Check(value)) return Fit::kYes;
    return IsPlainValue(value) ? Fit::kNo : Fit::kUnknown;
  }
  if (type == "float") {
    if (PyFloat_Check(value) || PyLong_Check(value)) return Fit::kYes;
    return IsPlainValue(value) ? Fit::kNo : Fit::kUnknown;
  }
  if (type == "dict" || type.rfind("Dict[", 0) == 0) {
    if (PyDict_Check(value)) return type == "dict" ? Fit::kYes : Fit::kUnknown;
    return IsPlainValue(value) ? Fit::kNo : Fit::kUnknown;
  }
  if (type == "list" || type.rfind("List[", 0) == 0 || type.rfind("Sequence[", 0) == 0) {
    if (PyList_Check(value) || PyTuple_Check(value))
      return type == "list" ? Fit::kYes : Fit::kUnknown;
    return IsPlainValue(value) ? Fit::kNo : Fit::kUnknown;
  }
  if (type.rfind("Callable", 0) == 0 || type == "function") {
    return PyCallable_Check(value) != 0 ? Fit::kYes : Fit::kNo;
  }
  if (type.rfind("hwrec._hwrec.", 0) == 0) {  // one of the module's classes, or a subclass
    PyObject* mro = Py_TYPE(value)->tp_mro;
    for (Py_ssize_t i = 0; mro != nullptr && i < PyTuple_GET_SIZE(mro); ++i) {
      if (type == reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, i))->tp_name) {
        return Fit::kYes;
      }
    }
    return Fit::kNo;  // the module converts to none of its classes implicitly
  }
  return IsPlainValue(value) ? Fit::kNo : Fit::kUnknown;
}

std::string Shown(std::string_view type) {
  std::string out(Trim(type));
  for (std::size_t at = out.find("hwrec._hwrec."); at != std::string::npos;
       at = out.find("hwrec._hwrec.", at)) {
    out.erase(at + 5, 7);  // the module's classes are hwrec.X
  }
  return out;
}

std::string TypeName(PyObject* value) {
  if (value == Py_None) return "None";
  return Shown(Py_TYPE(value)->tp_name);
}

// Why `value` cannot be `parameter`, or "": a type it does not take, or text
// that UTF-8 cannot carry where text is taken.
std::string Mismatch(const Parameter& parameter, PyObject* value) {
  if (Fits(parameter.type, value) == Fit::kNo) {
    return "argument '" + parameter.name + "' must be " + Shown(parameter.type) + ", not " +
           TypeName(value);
  }
  if (PyUnicode_Check(value) && parameter.type.find("str") != std::string::npos &&
      PyUnicode_AsUTF8AndSize(value, nullptr) == nullptr) {
    PyErr_Clear();
    return "argument '" + parameter.name +
           "' holds a lone surrogate, which is not text UTF-8 can carry: send valid Unicode "
           "text";
  }
  return "";
}

// A keyword the caller made up, shown but bounded.
std::string ShownKeyword(std::string_view name) {
  constexpr std::size_t kLongest = 40;
  return name.size() <= kLongest ? std::string(name) : std::string(name.substr(0, kLongest)) + "…";
}

// Why `signature` does not take the call, or "" when it cannot tell.
std::string WhyNot(const std::vector<Parameter>& parameters, bool skip_self, PyObject* args,
                   PyObject* kwargs) {
  const Py_ssize_t given = PyTuple_GET_SIZE(args);
  Py_ssize_t next = skip_self ? 1 : 0;
  std::vector<bool> bound(parameters.size(), false);
  std::size_t positional = 0;
  for (const Parameter& p : parameters) positional += p.keyword_only ? 0 : 1;
  const std::size_t shown_offset = parameters.empty() || parameters.front().name != "self" ? 0 : 1;
  if (static_cast<std::size_t>(given - next) > positional) {
    return "takes " + std::to_string(positional - shown_offset) + " positional argument" +
           (positional - shown_offset == 1 ? "" : "s") + " but " +
           std::to_string(given - next - static_cast<Py_ssize_t>(shown_offset)) + " were given";
  }
  for (std::size_t i = 0; i < parameters.size() && next < given; ++i) {
    if (parameters[i].keyword_only) break;
    PyObject* value = PyTuple_GET_ITEM(args, next++);
    bound[i] = true;
    if (std::string why = Mismatch(parameters[i], value); !why.empty()) return why;
  }
  if (kwargs != nullptr) {
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &size) : nullptr;
      if (utf8 == nullptr) {
        PyErr_Clear();
        return "a keyword is not text";
      }
      const std::string_view name(utf8, static_cast<std::size_t>(size));
      std::size_t i = 0;
      while (i < parameters.size() && parameters[i].name != name) ++i;
      if (i == parameters.size()) return "unexpected keyword argument '" + ShownKeyword(name) + "'";
      if (bound[i]) return "argument '" + parameters[i].name + "' given twice";
      bound[i] = true;
      if (std::string why = Mismatch(parameters[i], value); !why.empty()) return why;
    }
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (!bound[i] && !parameters[i].has_default && parameters[i].name != "self") {
      return "missing argument '" + parameters[i].name + "'";
    }
  }
  return "";
}

// What the call was given, by type only.
std::string GivenTypes(PyObject* args, PyObject* kwargs, bool skip_self) {
  // A method's own instance is not among what the caller gave.
  std::string out;
  for (Py_ssize_t i = skip_self ? 1 : 0; i < PyTuple_GET_SIZE(args); ++i) {
    if (!out.empty()) out += ", ";
    out += TypeName(PyTuple_GET_ITEM(args, i));
  }
  if (kwargs != nullptr) {
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      if (!out.empty()) out += ", ";
      const char* utf8 = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
      if (utf8 == nullptr) PyErr_Clear();
      out += ShownKeyword(utf8 != nullptr ? utf8 : "?") + "=" + TypeName(value);
    }
  }
  return out;
}

// The message for a call no signature took; `pybind11_message` gives the signatures.
std::string Rewritten(PyObject* self, PyObject* args, PyObject* kwargs,
                      const std::string& pybind11_message) {
  const auto named = Names().find(self);
  const bool constructor = pybind11_message.find("incompatible constructor") != std::string::npos;
  std::string name = named != Names().end() ? named->second : "hwrec function";
  std::vector<std::string> signatures;
  const std::size_t list = pybind11_message.find("supported:\n");
  const std::size_t end = pybind11_message.find("\nInvoked with");
  if (list != std::string::npos && end != std::string::npos && end > list) {
    for (std::string_view line : SplitTopLevel(
             std::string_view(pybind11_message).substr(list + 11, end - list - 11), "\n")) {
      line = Trim(line);
      const std::size_t dot = line.find(". ");
      if (line.empty() || dot == std::string_view::npos) continue;
      signatures.emplace_back(line.substr(dot + 2));
    }
  }
  if (signatures.size() == 1) {
    const std::string why = WhyNot(ParametersOf(signatures.front()), constructor, args, kwargs);
    if (!why.empty()) return name + ": " + why;
    // Every argument is of a type it takes: a value is beyond what the type holds.
    const std::size_t open = signatures.front().find('(');
    return name +
           ": a value given is out of the range of its type (e.g. an int of more than "
           "64 bits, or a negative one where a count is taken); it takes " +
           Shown(open == std::string::npos ? signatures.front() : signatures.front().substr(open));
  }
  const std::vector<Parameter> first =
      signatures.empty() ? std::vector<Parameter>() : ParametersOf(signatures.front());
  const bool method = !first.empty() && first.front().name == "self";
  std::string out = name + ": no form of it takes (" +
                    GivenTypes(args, kwargs, constructor || method) + "); it takes";
  for (const std::string& signature : signatures) {
    const std::size_t open = signature.find('(');
    out += "\n  " + Shown(open == std::string::npos ? signature : signature.substr(open));
  }
  return out;
}

PyObject* Guarded(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* result = Pybind11Function::Dispatcher()(self, args, kwargs);
  if (result != nullptr || !PyErr_ExceptionMatches(PyExc_TypeError)) return result;
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  std::string message;
  if (value != nullptr && PyUnicode_Check(value)) {
    const char* utf8 = PyUnicode_AsUTF8(value);
    if (utf8 != nullptr) message = utf8;
  } else if (value != nullptr) {
    PyObject* text = PyObject_Str(value);
    const char* utf8 = text != nullptr ? PyUnicode_AsUTF8(text) : nullptr;
    if (utf8 != nullptr) message = utf8;
    Py_XDECREF(text);
  }
  PyErr_Clear();
  // Only the message pybind11's dispatcher just set, "<name>(): incompatible
  // ...": a TypeError raised in Python code under the call (a launcher's, or
  // another module's with the same words) carries a traceback and passes as it is.
  const std::size_t incompatible = message.find("(): incompatible ");
  if (traceback != nullptr || incompatible == std::string::npos ||
      message.find_first_of(" \n") < incompatible ||
      message.find("\nInvoked with") == std::string::npos) {
    PyErr_Restore(type, value, traceback);
    return nullptr;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  try {
    const std::string rewritten = Rewritten(self, args, kwargs, message);
    PyErr_SetString(PyExc_TypeError, rewritten.c_str());
  } catch (...) {
    PyErr_SetString(PyExc_TypeError,
                    "an hwrec call was given arguments of the wrong types: see "
                    "help() for what it takes");
  }
  return nullptr;
}

void Guard(PyObject* callable, const std::string& name) {
  if (callable == nullptr) return;
  if (PyInstanceMethod_Check(callable)) callable = PyInstanceMethod_Function(callable);
  if (!PyCFunction_Check(callable)) return;
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(callable)->m_ml;
  if (reinterpret_cast<void*>(def->ml_meth) ==
      reinterpret_cast<void*>(Pybind11Function::Dispatcher())) {
    def->ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Guarded));
  }
  if (reinterpret_cast<void*>(def->ml_meth) == reinterpret_cast<void*>(&Guarded)) {
    Names()[PyCFunction_GET_SELF(callable)] = name;
  }
}

void GuardClass(const py::handle& cls, const std::string& name) {
  const py::dict members = py::reinterpret_borrow<py::dict>(
      py::handle(reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dict));
  for (const auto& item : members) {
    const std::string member = py::str(item.first);
    const py::handle value = item.second;
    if (member == "__init__") {
      Guard(value.ptr(), name + "()");
    } else if (py::isinstance<py::staticmethod>(value)) {
      Guard(value.attr("__func__").ptr(), name + "." + member + "()");
    } else if (PyObject_TypeCheck(value.ptr(), &PyProperty_Type) != 0) {
      for (const char* accessor : {"fget", "fset"}) {
        Guard(value.attr(accessor).ptr(), name + "." + member);
      }
    } else {
      Guard(value.ptr(), name + "." + member + "()");
    }
  }
}

}  // namespace

void GuardArgumentErrors(py::module_& m) {
  const std::string module_name = py::str(m.attr("__name__"));
  for (const auto& item : py::reinterpret_borrow<py::dict>(m.attr("__dict__"))) {
    const std::string name = "hwrec." + std::string(py::str(item.first));
    const py::handle value = item.second;
    if (PyType_Check(value.ptr()) && py::hasattr(value, "__module__") &&
        std::string(py::str(value.attr("__module__"))) == module_name) {
      GuardClass(value, name);
    } else {
      Guard(value.ptr(), name + "()");
    }
  }
}

}  // namespace hwrec::python::argument_errors
