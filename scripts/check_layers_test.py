#!/usr/bin/env python3
"""Tests scripts/check_layers.py on scratch trees (CTest "layers_selftest").

Each case writes a small tree (src/<layer>/..., include/hwrec/...) into a
temporary directory, runs the check on it and asserts that it fails, naming
the offending file, or passes on a clean tree. Then the check must fail on the
tree as of commit b1d9881, before the layers existed: the test would have
caught today's structure; and on the tree of f6ccdbe, whose CLI and bench
included src/. Plain python3, no pytest.

Usage: check_layers_test.py [ROOT]   (ROOT: the checkout holding this script)
"""

import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
CHECK = ROOT / "scripts" / "check_layers.py"
BEFORE_LAYERS = "b1d9881"
# The tree before the CLI and the bench used the public API alone.
BEFORE_CLIENTS = "f6ccdbe"

# A tree that keeps every rule: each file includes its own folder, lower
# layers and public headers of its layer or below.
CLEAN = {
    "include/hwrec/status.h": "#pragma once\n",
    "include/hwrec/store.h": '#pragma once\n#include "hwrec/status.h"\n',
    "include/hwrec/recommend.h": '#pragma once\n#include "hwrec/store.h"\n',
    "src/base/text.h": "#pragma once\n#include <string>\n",
    "src/base/text.cpp": '#include "base/text.h"\n#include "hwrec/status.h"\n',
    "src/store/database.h": '#pragma once\n#include "base/text.h"\n',
    "src/store/store_internal.h": "#pragma once\n",
    "src/store/sqlite_connection.cpp": (
        '#include <SQLiteCpp/SQLiteCpp.h>\n#include <sqlite3.h>\n'
        '#include "store/database.h"\n#include "store/store_internal.h"\n'
        '#include "store/sqlite_util.h"\n'),
    "src/aggregate/aggregator.cpp": '#include "store/database.h"\n#include "hwrec/store.h"\n',
    "src/recommend/recommend.cpp": (
        '#include "hwrec/recommend.h"\n#include "store/database.h"\n'
        '#include "recommend/recommend_internal.h"\n'),
    "src/recommend/recommend_internal.h": "#pragma once\n",
    "src/placement/placement.cpp": '#include "recommend/recommend.h"\n',
    "src/router/router.cpp": '#include "aggregate/aggregator.h"\n',
    "tools/common/dispatch.h": "#pragma once\n",
    "tools/hwrec/cli.h": '#pragma once\n#include "common/dispatch.h"\n',
    "tools/hwrec/cli.cpp": '#include "cli.h"\n#include "hwrec/store.h"\n',
    "tools/bench/raw.h": "#pragma once\n",
    "fixtures/generator.h": "#pragma once\n",
    "tools/bench/raw.cpp": (
        '#include <SQLiteCpp/SQLiteCpp.h>\n#include "bench/raw.h"\n'
        '#include "common/dispatch.h"\n#include "fixtures/generator.h"\n'),
    "python/src/module.cpp": '#include "hwrec/recommend.h"\n',
}

# Each broken tree is the clean one plus one file: (what it breaks, the file,
# its text, what the report must say about that file).
BROKEN = [
    ("a file over 450 lines", "src/base/long.cpp", '#include "base/text.h"' + "\n" * 451,
     "is 452 lines, more than 450"),
    ("a file in the src/ root", "src/config.cpp", '#include "base/text.h"', "is in no layer"),
    ("a folder that is no layer", "src/util/strings.cpp", "", "src/util/ is not a layer"),
    ("an upward include", "src/store/backup.cpp", '#include "recommend/recommend.h"',
     "includes header recommend/recommend.h of layer 'recommend', above 'store'"),
    ("an upward public include", "src/base/time.cpp", '#include "hwrec/recommend.h"',
     "includes public header hwrec/recommend.h of layer 'recommend', above 'base'"),
    ("a peer include", "src/router/ladder.cpp", '#include "placement/placement.h"',
     "includes header placement/placement.h of 'placement', a peer of 'router'"),
    ("another folder's *_internal.h", "src/placement/evaluate.cpp",
     '#include "recommend/recommend_internal.h"',
     "includes recommend/recommend_internal.h, private to src/recommend/"),
    ("<SQLiteCpp/...> outside src/store/", "src/ingest/ingest.cpp",
     "#include <SQLiteCpp/Statement.h>", "includes <SQLiteCpp/Statement.h>; only src/store/"),
    ("<sqlite3.h> outside src/store/", "src/legacy/move.cpp", "#include <sqlite3.h>",
     "includes <sqlite3.h>; only src/store/"),
    ("the engine's plumbing outside src/store/", "src/check/check.cpp",
     '#include "store/sqlite_util.h"', "includes store/sqlite_util.h, the engine's own plumbing"),
    ("an unknown public header", "include/hwrec/frobnicate.h", "#pragma once", "has no layer"),
    ("an include of an unknown public header", "src/base/text.cpp",
     '#include "hwrec/frobnicate.h"', "includes hwrec/frobnicate.h, which has no layer"),
    ("a public header including a higher one", "include/hwrec/store.h",
     '#include "hwrec/recommend.h"', "includes public header hwrec/recommend.h of layer"),
    ("the CLI including src/", "tools/hwrec/cmd.cpp", '#include "base/time.h"',
     'includes "base/time.h", a header of the library\'s src/'),
    ("the bench including src/", "tools/bench/engines.cpp", '#include "store/database.h"',
     'includes "store/database.h", a header of the library\'s src/'),
    ("the CLI reaching the engine", "tools/hwrec/cmd.cpp", "#include <sqlite3.h>",
     "includes <sqlite3.h>; hwrec's clients reach the store"),
    ("the bench including src/ by its path", "tools/bench/engines.cpp",
     "#include <src/store/database.h>", "includes <src/store/database.h>, a header of the"),
    ("a tool folder that is no client", "tools/extra/x.cpp", '#include "hwrec/store.h"',
     "tools/extra/ is no client folder"),
    ("a layer diagram that leaves a layer out", "docs/ARCHITECTURE.md",
     "```\n  check  legacy   the top\n  \u2500\u2500\u2500\u2500\n  base   the bottom\n```",
     "the layer diagram shows"),
    ("a build that skips a layer", "src/CMakeLists.txt", "set(HWREC_LAYERS base store)",
     "HWREC_LAYERS must list"),
    ("the module including src/", "python/src/values.cpp", '#include "aggregate/settings.h"',
     'includes "aggregate/settings.h", a header of the library\'s src/'),
]


def write_tree(where, files):
    for name, text in files.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def run_check(tree):
    return subprocess.run([sys.executable, str(CHECK), str(tree)], capture_output=True, text=True)


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="hwrec-layers-") as tmp:
        tmp = pathlib.Path(tmp)

        clean = tmp / "clean"
        write_tree(clean, CLEAN)
        result = run_check(clean)
        if result.returncode != 0:
            failures.append(f"a clean tree: expected to pass, got {result.returncode}:\n"
                            f"{result.stdout}{result.stderr}")

        for index, (case, name, text, says) in enumerate(BROKEN):
            tree = tmp / f"broken{index}"
            write_tree(tree, CLEAN)
            write_tree(tree, {name: text + "\n"})
            result = run_check(tree)
            expected = f"{name}: {says}"
            if result.returncode != 1 or expected not in result.stdout:
                failures.append(f"{case}: expected exit 1 and a line holding {expected!r}, "
                                f"got {result.returncode}:\n{result.stdout}{result.stderr}")

        for commit, says in ((BEFORE_LAYERS, ""),
                             (BEFORE_CLIENTS, "tools/bench/postgresql_target.cpp: includes")):
            old = tmp / commit
            old.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit],
                                     capture_output=True)
            if archive.returncode != 0:
                print(f"check_layers_test: skipped the tree of {commit} (no git history here: "
                      f"{archive.stderr.decode(errors='replace').strip()})")
                continue
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
            result = run_check(old)
            if result.returncode != 1 or says not in result.stdout:
                failures.append(f"the tree of {commit}: expected the check to fail"
                                f"{' naming ' + says if says else ''}, got "
                                f"{result.returncode}:\n{result.stdout}")
            else:
                print(f"check_layers_test: the tree of {commit} fails as it should: "
                      f"{result.stdout.strip().splitlines()[-1]}")

    for failure in failures:
        print(f"FAILED: {failure}")
    total = len(BROKEN) + 1
    print(f"check_layers_test: {total - len(failures)} of {total} scratch trees judged right")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
