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
    date), which a consumer would bind to instead of its own copy.
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
TOP_NAME = re.compile(r"\bhwrec::([A-Za-z_][A-Za-z0-9_]*)")
STANDARD = re.compile(
    r"^(?:(?:vtable|typeinfo|typeinfo name|guard variable|VTT|construction vtable) for )?"
    r"(?:[\w:<>,*&\s]*\s)?(?:std|__gnu_cxx|__cxxabiv1)::")
WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


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
        if STANDARD.match(symbol):
            continue
        if "::Impl::" in symbol and "hwrec::" in symbol:
            found.append(f"{symbol}: a class's private implementation; define it "
                         f'[[gnu::visibility("hidden")]]')
            continue
        top = TOP_NAME.search(symbol)
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
           "hwrec::Store::Impl::Connect(std::string const&)"]
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
    found = problems(symbols, public_names(include_dir))
    for problem in found:
        print(problem)
    if found:
        print(f"{len(found)} of {len(symbols)} exported symbols are not hwrec's public API")
        return 1
    hwrec = sum(1 for s in symbols if "hwrec::" in s and not STANDARD.match(s))
    print(f"exports: {len(symbols)} symbols, {hwrec} of them hwrec's public API, the rest the "
          f"standard library's instantiations; nothing internal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
