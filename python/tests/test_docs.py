"""docs/PYTHON.md cannot drift from the module: each of its python blocks runs."""

import re

from conftest import EXAMPLES, REPO


def python_blocks():
    text = (REPO / "docs" / "PYTHON.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_every_python_example_of_the_docs_runs(tmp_path, capsys):
    blocks = python_blocks()
    assert blocks
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/PYTHON.md block {i}", "exec"),
             {"path": tmp_path / f"doc{i}.db", "examples": EXAMPLES})
    assert capsys.readouterr().out.count("\n") >= 4
