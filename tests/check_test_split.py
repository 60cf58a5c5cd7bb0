#!/usr/bin/env python3
"""Checks that the CTest entries of hwrec_tests run the whole suite, each case once.

The suite is split into one CTest entry per test file (hwrec_tests_<file>,
tests/CMakeLists.txt). This reads every entry's command from CTest itself
(`ctest --show-only=json-v1`), lists the cases each selects
(`hwrec_tests <its arguments> --list-test-names-only`), and compares them
with the cases of the whole suite under the build's filter (the tsan preset
runs only the threaded cases). The PostgreSQL rerun of the [engine] cases,
entries that run the binary through scripts/with_pg.sh
(--postgresql-runner), is counted apart: together those entries must run
every [engine] case once. Exit 1, naming the cases, when one is run by no
entry or by two.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys


# Listing runs no test: the sanitizers' leak check at exit only costs time.
LISTING_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")


def listed(binary, args):
    """The names of the cases `binary args` would run, in order."""
    out = subprocess.run([binary, *args, "--list-test-names-only"], capture_output=True,
                         text=True, check=False, env=LISTING_ENV)
    # Catch2 exits with the number of cases listed; only a crash is an error.
    if out.returncode < 0:
        sys.exit(f"check_test_split: {binary} {' '.join(args)} died: {out.stderr}")
    return [line for line in out.stdout.splitlines() if line.strip()]


def compare(what, suite, run, entries):
    """Prints what differs between the cases of `suite` and those `entries` run."""
    missing = sorted(suite - run)
    twice = sorted(name for name, count in run.items() if count > 1)
    extra = sorted(run - suite)
    for name in missing:
        print(f"{what}: run by no entry: {name}")
    for name in twice:
        print(f"{what}: run by {run[name]} entries: {name}")
    for name in extra:
        print(f"{what}: run by an entry but not in the suite's filter: {name}")
    total = sum(suite.values())
    if missing or twice or extra:
        print(f"check_test_split: {what}: the {len(entries)} entries do not run the "
              f"{total} cases once each")
        return False
    print(f"check_test_split: {what}: {len(entries)} entries run the {total} cases, each once")
    return True


def run_by(binary, entries):
    """Every case the entries run, with how many of them run it."""
    run = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for names in pool.map(lambda args: listed(binary, args), entries.values()):
            run.update(names)
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ctest", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--postgresql-runner", default="")
    options = parser.parse_args()

    shown = subprocess.run([options.ctest, "--show-only=json-v1"], cwd=options.build_dir,
                           capture_output=True, text=True, check=True)
    entries = {}
    postgresql = {}
    for test in json.loads(shown.stdout)["tests"]:
        command = test.get("command") or []
        if not test["name"].startswith("hwrec_tests_"):
            continue
        if command and command[0] == options.binary:
            entries[test["name"]] = command[1:]
        elif (options.postgresql_runner and len(command) > 1
              and command[0] == options.postgresql_runner and command[1] == options.binary):
            postgresql[test["name"]] = command[2:]
    if not entries:
        sys.exit(f"check_test_split: no CTest entry runs {options.binary}")
    if options.postgresql_runner and not postgresql:
        sys.exit(f"check_test_split: no CTest entry runs {options.binary} "
                 f"through {options.postgresql_runner}")

    suite = collections.Counter(listed(options.binary, [options.filter] if options.filter else []))
    ok = compare("the suite", suite, run_by(options.binary, entries), entries)
    if options.postgresql_runner:
        engine = collections.Counter(listed(options.binary, ["[engine]"]))
        ok = compare("[engine] on PostgreSQL", engine, run_by(options.binary, postgresql),
                     postgresql) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
