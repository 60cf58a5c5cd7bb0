#!/usr/bin/env python3
"""Checks that hwrec's includes go one way: down the layers.

The library is a stack of folders under src/ (docs/ARCHITECTURE.md). A file
may include headers of its own folder and of lower layers, and public headers
(include/hwrec/) that belong to its layer or below. A header named
*_internal.h is private to its folder. Only src/store/ reaches the database
engine (SQLiteCpp, sqlite3.h, libpq): every layer above talks to it through the
store's interface (src/store/database.h). Public headers follow the same
order among themselves. hwrec's own clients (the CLI and hwrec-bench in
tools/, the Python module in python/src/) include the public headers and
their own, never src/ (CLIENTS below).

Usage: check_layers.py [ROOT]   (ROOT defaults to the checkout holding this
script). Prints each violation with the fix and exits 1 when there is any.
"""

import pathlib
import re
import sys

# Lowest first. Folders in one tuple are peers: neither may include the other.
LAYERS = [
    ("base",),       # status, text, time, CSV, JSON fields, enum names, record errors
    ("store",),      # the database seam: connection, statements, transactions, migrations
    ("hardware",),   # profile ids, catalog, GPU modes, node pools
    ("record",),     # observations and the Runner's record forms
    ("aggregate",),  # metric state, aggregator, settings (the config table)
    ("recommend",),  # figures from aggregates, materialised and queried
    ("ingest",),     # validate, deduplicate, write observations and aggregates
    ("placement", "router", "backtest"),  # effective requests on pools; the width ladder;
                                          # the replay of the history and its report
    ("check", "legacy"),      # whole-store verification; the hp:v1 -> hp:v2 move
    ("copy",),                # a whole store into an empty one, verified as check verifies
]

# Each public header's layer. A new public header must be added here.
PUBLIC = {
    "status.h": "base",
    "version.h": "base",
    "record_error.h": "base",
    "time_text.h": "base",
    "remedy.h": "base",
    "store.h": "store",
    "store_location.h": "store",
    "hardware_profile.h": "hardware",
    "hardware_key.h": "hardware",
    "catalog.h": "hardware",
    "node_pool.h": "hardware",
    "observation.h": "record",
    "runner.h": "record",
    "config.h": "recommend",
    "figure.h": "aggregate",
    "ingest.h": "ingest",
    "pool_import.h": "ingest",
    "recommend.h": "recommend",
    "refresh.h": "recommend",
    "placement.h": "placement",
    "placement_input.h": "placement",
    "placement_result.h": "placement",
    "placement_record.h": "placement",
    "placement_json.h": "placement",
    "placement_runner.h": "placement",
    "ladder.h": "router",
    "ladder_walk.h": "router",
    "router.h": "router",
    "router_config.h": "router",
    "simulated_capacity.h": "router",
    "backtest.h": "backtest",
    "backtest_report.h": "backtest",
    "check.h": "check",
    "store_copy.h": "copy",
    "legacy_migration.h": "legacy",
    "legacy_quarantine.h": "legacy",
    "export.h": "base",
    "hwrec.h": "umbrella",
}

ENGINE_HEADERS = ("SQLiteCpp/", "sqlite3.h", "libpq-fe.h")
ENGINE_FOLDER = "store"
# Headers of src/store/ that expose the engine itself: private to src/store/.
ENGINE_PRIVATE = {"store/sqlite_util.h", "store/sqlite_connection.h", "store/pg_connection.h"}

RANK = {folder: rank for rank, peers in enumerate(LAYERS) for folder in peers}
RANK["umbrella"] = len(LAYERS)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)


def layer_name(folder):
    peers = next((p for p in LAYERS if folder in p), (folder,))
    return " / ".join(peers)


def check_edge(where, own, target, what):
    """The problem with `own` (a folder) using `target`, or None."""
    if target == own:
        return None
    if RANK[target] > RANK[own]:
        return (f"{where}: includes {what} of layer '{target}', above '{own}'; "
                f"move the code it needs down to '{target}'s level or below, or move this file up")
    if RANK[target] == RANK[own]:
        return (f"{where}: includes {what} of '{target}', a peer of '{own}' "
                f"(layer {layer_name(own)}); share code through a lower layer instead")
    return None


# The most lines a file of src/ may hold: a longer one is two concepts.
MAX_SOURCE_LINES = 450


def check_source(root, path, problems):
    rel = path.relative_to(root / "src")
    where = f"src/{rel.as_posix()}"
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n")
    if lines > MAX_SOURCE_LINES:
        problems.append(f"{where}: is {lines} lines, more than {MAX_SOURCE_LINES}: split it "
                        f"along what it holds")
    if len(rel.parts) < 2:
        problems.append(f"{where}: is in no layer; move it into one of src/"
                        f"{', src/'.join(RANK.keys() - {'umbrella'})}")
        return
    own = rel.parts[0]
    if own not in RANK:
        problems.append(f"{where}: src/{own}/ is not a layer; add it to LAYERS in "
                        f"scripts/check_layers.py and docs/ARCHITECTURE.md, or move the file")
        return
    for bracket, name in INCLUDE.findall(text):
        if name.startswith(ENGINE_HEADERS):
            if own != ENGINE_FOLDER:
                problems.append(f"{where}: includes <{name}>; only src/store/ reaches the database "
                                f"engine: use src/store/database.h")
            continue
        if bracket != '"':
            continue
        if name.startswith("hwrec/"):
            header = name[len("hwrec/"):]
            target = PUBLIC.get(header)
            if target is None:
                problems.append(f"{where}: includes {name}, which has no layer; add it to PUBLIC "
                                f"in scripts/check_layers.py")
                continue
            problem = check_edge(where, own, target, f"public header {name}")
        else:
            parts = pathlib.PurePosixPath(name).parts
            target = parts[0] if len(parts) > 1 else None
            if target not in RANK:
                problems.append(f'{where}: includes "{name}"; include headers by their layer '
                                f'path ("store/database.h")')
                continue
            if target != own and name in ENGINE_PRIVATE:
                problems.append(f"{where}: includes {name}, the engine's own plumbing; use "
                                f"store/database.h (and store/guarded.h) instead")
                continue
            if target != own and parts[-1].endswith("_internal.h"):
                problems.append(f"{where}: includes {name}, private to src/{target}/; use that "
                                f"layer's public or internal interface instead")
                continue
            problem = check_edge(where, own, target, f"header {name}")
        if problem:
            problems.append(problem)


def check_public(root, path, problems):
    header = path.name
    where = f"include/hwrec/{header}"
    own = PUBLIC.get(header)
    if own is None:
        problems.append(f"{where}: has no layer; add it to PUBLIC in scripts/check_layers.py")
        return
    for bracket, name in INCLUDE.findall(path.read_text(encoding="utf-8")):
        if name.startswith(ENGINE_HEADERS):
            problems.append(f"{where}: includes <{name}>; public headers never expose the engine")
            continue
        if bracket != '"':
            continue
        if not name.startswith("hwrec/"):
            problems.append(f'{where}: includes "{name}"; public headers include only hwrec/*.h')
            continue
        target = PUBLIC.get(name[len("hwrec/"):])
        if target is None:
            problems.append(f"{where}: includes {name}, which has no layer")
            continue
        problem = check_edge(where, own, target, f"public header {name}")
        if problem:
            problems.append(problem)


# hwrec's own clients: they use the public API (include/hwrec/), their own
# folder's headers and the folders named here, never the library's src/.
# `roots`: an include "X/name.h" is allowed when X is a key and the header is
# in that folder. `engine`: whether the client may reach SQLite or PostgreSQL
# itself (hwrec-bench: its raw ceilings and its throwaway servers).
CLIENTS = {
    "python/src": {"roots": {}, "engine": False},
    "tools/common": {"roots": {"common": "tools/common"}, "engine": False},
    "tools/hwrec": {"roots": {"common": "tools/common"}, "engine": False},
    "tools/bench": {"roots": {"common": "tools/common", "bench": "tools/bench",
                              "fixtures": "fixtures"}, "engine": True},
}


def check_client(root, folder, path, problems):
    where = path.relative_to(root).as_posix()
    client = CLIENTS[folder]
    for bracket, name in INCLUDE.findall(path.read_text(encoding="utf-8")):
        if name.startswith(ENGINE_HEADERS):
            if not client["engine"]:
                problems.append(f"{where}: includes <{name}>; hwrec's clients reach the store "
                                f"through include/hwrec/store.h")
            continue
        parts = pathlib.PurePosixPath(name).parts
        if bracket != '"':
            if parts and (parts[0] == "src" or parts[0] in RANK):
                problems.append(f"{where}: includes <{name}>, a header of the library's src/; "
                                f"use the public API (include/hwrec/) or make what it needs public")
            continue
        if name.startswith("hwrec/"):
            if name[len("hwrec/"):] not in PUBLIC:
                problems.append(f"{where}: includes {name}, which is not a public header")
            continue
        if len(parts) == 1:
            allowed = (root / folder / name).is_file()
        else:
            base = client["roots"].get(parts[0])
            allowed = base is not None and (root / base / pathlib.PurePosixPath(*parts[1:])).is_file()
        if not allowed:
            problems.append(f'{where}: includes "{name}", a header of the library\'s src/; '
                            f"use the public API (include/hwrec/) or make what it needs public")


def documented_layers(text):
    """The layers of the diagram in docs/ARCHITECTURE.md, highest first: one
    rank a line, peers on one line, each name before its description."""
    blocks = re.findall(r"^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    diagram = next((b for b in blocks if "\u2500\u2500\u2500" in b), None)
    if diagram is None:
        return None
    ranks = []
    for line in diagram.splitlines():
        if not line.strip() or line.lstrip().startswith("\u2500") or line.startswith("   "):
            continue
        names = []
        for token in re.split(r" {2,}", line.strip()):
            if not re.fullmatch(r"[a-z_]+", token):
                break
            names.append(token)
        if names:
            ranks.append(tuple(sorted(names)))
    return ranks


def check_docs(root, problems):
    """The diagram and table of docs/ARCHITECTURE.md and the folders
    src/CMakeLists.txt builds name the layers LAYERS names, in its order."""
    expected = [tuple(sorted(peers)) for peers in reversed(LAYERS)]
    doc = root / "docs" / "ARCHITECTURE.md"
    if doc.is_file():
        text = doc.read_text(encoding="utf-8")
        drawn = documented_layers(text)
        if drawn != expected:
            problems.append(f"docs/ARCHITECTURE.md: the layer diagram shows {drawn}, highest "
                            f"first; scripts/check_layers.py has {expected}: make them agree")
        tabled = re.findall(r"^\| `([a-z_]+)/` \|", text, re.MULTILINE)
        if sorted(tabled) != sorted(RANK.keys() - {"umbrella"}):
            problems.append(f"docs/ARCHITECTURE.md: the layer table lists {tabled}; "
                            f"scripts/check_layers.py has {sorted(RANK.keys() - {'umbrella'})}")
    cmake = root / "src" / "CMakeLists.txt"
    if cmake.is_file():
        built = re.search(r"set\(HWREC_LAYERS ([a-z_\s]+)\)", cmake.read_text(encoding="utf-8"))
        lowest_first = [name for peers in LAYERS for name in peers]
        if built is None or built.group(1).split() != lowest_first:
            problems.append(f"src/CMakeLists.txt: HWREC_LAYERS must list {' '.join(lowest_first)}"
                            f", lowest first, as scripts/check_layers.py does")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    problems = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix in (".h", ".cpp"):
            check_source(root, path, problems)
    for path in sorted((root / "include" / "hwrec").glob("*.h")):
        check_public(root, path, problems)
    check_docs(root, problems)
    for top in ("tools", "python/src"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".h", ".cpp"):
                continue
            folder = path.parent.relative_to(root).as_posix()
            if folder not in CLIENTS:
                problems.append(f"{path.relative_to(root).as_posix()}: {folder}/ is no client "
                                f"folder; add it to CLIENTS in scripts/check_layers.py")
                continue
            check_client(root, folder, path, problems)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) with the layers (see docs/ARCHITECTURE.md)")
        return 1
    print("layers: every include goes down; the docs and the build name the same layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
