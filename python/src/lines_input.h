// Records in, as every call that reads JSON lines or CSV takes them: a path, a
// text or binary file object, one dict or an iterable of dicts.
#pragma once

#include <pybind11/pybind11.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "hwrec/status.h"

namespace hwrec::python {

namespace py = pybind11;

// The input's lines: a file to read, or the text itself.
struct LinesInput {
  std::string path;  // set: read this file
  std::string text;
};

// Reads `input`; dicts become JSON lines. `what` names the argument in errors.
LinesInput ReadLines(const py::handle& input, const char* what);

// Runs `read(stream)` on the input's lines, without the GIL.
template <typename Fn>
auto WithLines(const LinesInput& input, Fn&& read)
    -> decltype(read(std::declval<std::istream&>())) {
  py::gil_scoped_release release;
  if (input.path.empty()) {
    std::istringstream in(input.text);
    return read(in);
  }
  std::error_code ec;
  if (std::filesystem::is_directory(input.path, ec)) {
    return Status::IoError(input.path + ": is a directory: give a file");
  }
  std::ifstream in(input.path, std::ios::binary);
  if (!in) {
    const int error = errno;
    std::string message = input.path + ": cannot read it: " + std::strerror(error);
    return error == ENOENT ? Status::NotFound(message) : Status::IoError(message);
  }
  return read(in);
}

}  // namespace hwrec::python
