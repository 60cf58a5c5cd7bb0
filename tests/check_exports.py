#!/usr/bin/env python3
"""Checks what a shared libhwrec exports: the public API and nothing else.

hwrec compiles with hidden visibility and marks what include/hwrec/ declares
HWREC_EXPORT (hwrec/export.h). This lists the library's exported symbols
(`nm -D --defined-only -C`) and fails on:
  - a symbol of a namespace under hwrec (hwrec::internal::, hwrec::store::):
    the layers' own code, which no program outside the library may call;
  - a symbol of hwrec:: whose name no public header declares, or of a
    public class's private Impl;
  - a symbol of another library (fmt, nlohmann, SQLiteCpp, SQLite, libpq,
    date), which a consumer would bind to instead of its own copy;
  - a declaration in a public header without HWREC_EXPORT, which the
    library would not export.
The standard library's template instantiations (std::, __gnu_cxx::) are
weak copies every program may make; they are allowed.

Usage: check_exports.py LIBRARY INCLUDE_DIR   (CTest "exports", shared builds)
       check_exports.py --selftest
"""

import pathlib
import re
import subprocess
import sys

NESTED = re.compile(r"\bhwrec::[a-z_][a-z0-9_]*::")
TOP_NAME = re.compile(r"^hwrec::([A-Za-z_][A-Za-z0-9_]*)")
PREFIX = re.compile(r"^(?:vtable|typeinfo name|typeinfo|guard variable|VTT|construction vtable)"
                    r" for ")
STANDARD_NAMESPACES = ("std::", "__gnu_cxx::", "__cxxabiv1::")
WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
# A declaration at namespace scope in a public header (column 0), and what
# needs no HWREC_EXPORT: no symbol of its own, or defined in the header.
DECLARATION = re.compile(r"^[A-Za-z_].*[(]|^(?:class|struct) (?:\[\[\w+\]\] )?\w+[^;]*$")
NOT_EXPORTED = re.compile(
    r"^(?:HWREC_EXPORT|namespace|using|template|inline|constexpr|enum|class \w+;|struct \w+;|"
    r"class \[\[nodiscard\]\] Result|typedef|static_assert)")


def own_name(symbol):
    """The qualified name a symbol is of: its entity's, not its template
    arguments' or parameters' ("std::vector::_M_realloc_insert" of
    "void std::vector<hwrec::Rung>::_M_realloc_insert<hwrec::Rung>(...)")."""
    text = PREFIX.sub("", symbol)
    depth = 0
    out = []
    for c in text:
        if c in "<(":
            if c == "(" and depth == 0:
                break
            depth += 1
        elif c in ">)":
            depth -= 1
        elif depth == 0:
            out.append(c)
    name = "".join(out).strip()
    return name.split(" ")[-1] if name else name


def unmarked(include_dir):
    """Declarations in the public headers that lack HWREC_EXPORT."""
    found = []
    for header in sorted(pathlib.Path(include_dir).glob("*.h")):
        if header.name == "export.h":
            continue
        for number, line in enumerate(header.read_text(encoding="utf-8").splitlines(), 1):
            if DECLARATION.match(line) and "HWREC_EXPORT" not in line and \
                    not NOT_EXPORTED.match(line):
                found.append(f"include/hwrec/{header.name}:{number}: {line.strip()}: mark it "
                             f"HWREC_EXPORT, or libhwrec.so will not export it")
    return found


def public_names(include_dir):
    names = set()
    for header in pathlib.Path(include_dir).glob("*.h"):
        names.update(WORD.findall(header.read_text(encoding="utf-8")))
    return names


def problems(symbols, names):
    found = []
    for symbol in symbols:
        if NESTED.search(symbol):
            found.append(f"{symbol}: a namespace under hwrec:: is the library's own code; "
                         f"keep it hidden (do not mark it HWREC_EXPORT)")
            continue
        name = own_name(symbol)
        if name.startswith(STANDARD_NAMESPACES):
            continue
        if "::Impl::" in name and name.startswith("hwrec::"):
            found.append(f"{symbol}: a class's private implementation; define it "
                         f'[[gnu::visibility("hidden")]]')
            continue
        top = TOP_NAME.search(name)
        if top is None:
            found.append(f"{symbol}: not hwrec's: link the library that defines it privately "
                         f"and keep its symbols out (-Wl,--exclude-libs,ALL)")
        elif top.group(1) not in names:
            found.append(f"{symbol}: hwrec::{top.group(1)} is in no public header; declare it "
                         f"in include/hwrec/ or keep it hidden")
    return found


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", library], capture_output=True,
                         text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] not in ("A",):
            symbols.append(parts[2])
    return symbols


def selftest():
    names = {"Store", "Open", "Status"}
    good = ["hwrec::Store::Open(std::string const&)", "typeinfo for hwrec::Status",
            "void std::vector<hwrec::Status, std::allocator<hwrec::Status> >::_M_realloc_insert<>",
            "guard variable for std::locale::id", "double __gnu_cxx::__stoa<double>(char const*)"]
    bad = ["hwrec::internal::NowEpochSeconds()", "hwrec::store::ConnectionOf(hwrec::Store&)",
           "std::vector<hwrec::internal::Row>::~vector()", "fmt::v9::vformat(fmt::v9::string_view)",
           "sqlite3_open", "hwrec::LoadSettings(hwrec::Store&)",
           "hwrec::Store::Impl::Connect(std::string const&)",
           "nlohmann::basic_json<std::map, std::vector, std::string>::~basic_json()",
           "date::detail::save_ostream<char, std::char_traits<char> >::~save_ostream()",
           "hwrec::Hidden<int, std::string>::f()"]
    failures = [s for s in good if problems([s], names)]
    failures += [s for s in bad if not problems([s], names)]
    for f in failures:
        print(f"FAILED: judged wrongly: {f}")
    print(f"check_exports selftest: {len(good) + len(bad) - len(failures)} of "
          f"{len(good) + len(bad)} symbols judged right")
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if selftest() != 0:
        return 1
    library, include_dir = sys.argv[1], sys.argv[2]
    symbols = exported(library)
    found = unmarked(include_dir) + problems(symbols, public_names(include_dir))
    for problem in found:
        print(problem)
    if found:
        print(f"{len(found)} of {len(symbols)} exported symbols are not hwrec's public API")
        return 1
    hwrec = sum(1 for s in symbols if own_name(s).startswith("hwrec::"))
    print(f"exports: {len(symbols)} symbols, {hwrec} of them hwrec's public API, the rest the "
          f"standard library's instantiations; nothing internal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
