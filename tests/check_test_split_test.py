#!/usr/bin/env python3
"""The split check's own test (tests/check_test_split.py).

A stand-in test binary lists the cases of a small suite by file tag, and a
stand-in ctest shows the entries each case states: the check passes when
the entries run every case once, and fails, naming the case, when an entry
is lost, when two entries run the same case, or when the PostgreSQL entries
miss an [engine] case.
"""

import json
import os
import pathlib
import stat
import subprocess
import sys
import tempfile
import unittest

CHECK = pathlib.Path(__file__).with_name("check_test_split.py")

# Cases of the stand-in suite: (name, file tag, tags).
SUITE = [
    ("store opens", "store", ["engine"]),
    ("store refuses a link", "store", []),
    ("placement fits", "placement", ["engine"]),
    ("placement explains", "placement", []),
    ("router ladders", "router", []),
]

# Lists the cases a filter selects, as Catch2's --list-test-names-only does:
# no filter is the whole suite; "[#file]" is one file's cases, "[tag]" the
# tagged ones, "~[tag]" the others; tags side by side must all hold, and
# filters joined by "," select what any of them selects.
BINARY = """#!{python}
import re, sys
suite = {suite!r}
args = [a for a in sys.argv[1:] if not a.startswith("--")]
filters = args[0].split(",") if args else []
def holds(case, tag):
    name, file, tags = case
    return tag == "#" + file or tag in tags
def selected(case):
    if not filters:
        return True
    return any(all(holds(case, tag) != bool(no) for no, tag in re.findall(r"(~?)\\[([^\\]]+)\\]", f))
               for f in filters)
names = [case[0] for case in suite if selected(case)]
print("\\n".join(names))
sys.exit(len(names))
"""

CTEST = """#!{python}
import json, sys
print(json.dumps({{"tests": {tests!r}}}))
"""


class SplitCheckTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)
        self.binary = self.write("hwrec_tests", BINARY.format(python=sys.executable, suite=SUITE))
        self.runner = str(self.root / "with_pg.sh")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = self.root / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def entry(self, name, selection, postgresql=False):
        command = [self.binary, "--filenames-as-tags", selection]
        return {"name": name, "command": [self.runner, *command] if postgresql else command}

    def check(self, tests, postgresql=True, suite_filter=""):
        ctest = self.write("ctest", CTEST.format(python=sys.executable, tests=tests))
        args = [sys.executable, str(CHECK), "--ctest", ctest, "--build-dir", str(self.root),
                "--binary", self.binary]
        if postgresql:
            args += ["--postgresql-runner", self.runner]
        if suite_filter:
            args += ["--filter", suite_filter]
        return subprocess.run(args, capture_output=True, text=True, check=False)

    def whole_split(self):
        return [
            self.entry("hwrec_tests_store", "[#store]"),
            self.entry("hwrec_tests_placement", "[#placement]"),
            self.entry("hwrec_tests_router", "[#router]"),
            self.entry("hwrec_tests_postgresql_1", "[#store][engine]", postgresql=True),
            self.entry("hwrec_tests_postgresql_2", "[#placement][engine]", postgresql=True),
            {"name": "layers", "command": ["python3", "check_layers.py"]},
        ]

    def test_a_whole_split_passes(self):
        run = self.check(self.whole_split())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("3 entries run the 5 cases, each once", run.stdout)
        self.assertIn("2 entries run the 2 cases, each once", run.stdout)

    def test_a_lost_entry_fails_naming_its_cases(self):
        tests = [t for t in self.whole_split() if t["name"] != "hwrec_tests_router"]
        run = self.check(tests)
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("the suite: run by no entry: router ladders", run.stdout)

    def test_a_case_run_twice_fails(self):
        run = self.check(self.whole_split() + [self.entry("hwrec_tests_store_again", "[#store]")])
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("run by 2 entries: store refuses a link", run.stdout)

    def test_an_engine_case_left_off_postgresql_fails(self):
        tests = [t for t in self.whole_split() if t["name"] != "hwrec_tests_postgresql_2"]
        run = self.check(tests)
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("[engine] on PostgreSQL: run by no entry: placement fits", run.stdout)

    def test_no_postgresql_entry_at_all_fails(self):
        tests = [t for t in self.whole_split() if "postgresql" not in t["name"]]
        run = self.check(tests)
        self.assertEqual(run.returncode, 1)
        self.assertIn("no CTest entry runs", run.stderr)

    def test_the_filtered_suite_of_a_preset_is_what_counts(self):
        # tsan runs only some tags: entries beyond its filter are refused.
        run = self.check(self.whole_split()[:3], postgresql=False, suite_filter="[engine]")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn("not in the suite's filter: router ladders", run.stdout)


if __name__ == "__main__":
    os.chdir(pathlib.Path(__file__).parent)
    unittest.main()
