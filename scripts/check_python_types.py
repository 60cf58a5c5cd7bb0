#!/usr/bin/python3
"""The module's stubs match the module, and the code a user copies type-checks.

Runs `python3 -m mypy.stubtest hwrec` (allowlist: python/stubtest_allowlist.txt)
and `mypy --strict` on examples/runner_loop.py and on every ```python block of
docs/PYTHON.md and docs/RUNNER.md (each block as its own file, given the
`path` and `examples` the docs tests give it). The hwrec module must be
importable (PYTHONPATH=<build>/python). Exits 0 when all are clean.

    PYTHONPATH=build/dev/python /usr/bin/python3 scripts/check_python_types.py
"""

import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
DOCS = ("docs/PYTHON.md", "docs/RUNNER.md")
# What the docs tests (python/tests/test_docs.py) give each block.
PREAMBLE = "import pathlib\npath = pathlib.Path('store.db')\nexamples = pathlib.Path('examples')\n"


def run(what, command, cache):
    print(f"check_python_types: {what}", flush=True)
    # Run from the scratch folder, so that mypy's cache never lands in the
    # source tree; PYTHONPATH made absolute to find the module from there.
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    env = dict(os.environ, MYPY_CACHE_DIR=cache,
               PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in paths if p))
    return subprocess.run(command, cwd=os.path.dirname(cache), env=env).returncode == 0


def main():
    if importlib.util.find_spec("mypy") is None:
        sys.exit("check_python_types: mypy is not installed: apt-get install python3-mypy "
                 "(scripts/deps.sh installs it)")
    with tempfile.TemporaryDirectory() as scratch:
        cache = str(pathlib.Path(scratch) / "mypy_cache")
        ok = run("stubtest", [sys.executable, "-m", "mypy.stubtest", "hwrec", "--allowlist",
                              str(REPO / "python" / "stubtest_allowlist.txt")], cache)
        files = [str(REPO / "examples" / "runner_loop.py")]
        for doc in DOCS:
            text = (REPO / doc).read_text()
            for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
                name = pathlib.Path(scratch) / f"{pathlib.Path(doc).stem.lower()}_block_{i}.py"
                name.write_text(PREAMBLE + block)
                files.append(str(name))
        ok &= run(f"mypy --strict on {len(files)} files (the example, the docs' blocks)",
                  [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.9", *files],
                  cache)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
