"""docs/PYTHON.md cannot drift from the module: each of its python blocks runs."""

import re

from conftest import EXAMPLES, REPO


def python_blocks(doc="PYTHON.md"):
    text = (REPO / "docs" / doc).read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_every_python_example_of_the_docs_runs(tmp_path, capsys):
    blocks = python_blocks()
    assert blocks
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/PYTHON.md block {i}", "exec"),
             {"path": tmp_path / f"doc{i}.db", "examples": EXAMPLES})
    assert capsys.readouterr().out.count("\n") >= 4


def test_the_runner_docs_python_examples_run(tmp_path):
    blocks = python_blocks("RUNNER.md")
    assert blocks
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/RUNNER.md block {i}", "exec"),
             {"path": tmp_path / f"runner{i}.db", "examples": EXAMPLES})
