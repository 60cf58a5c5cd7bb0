"""docs/PYTHON.md cannot drift from the module: each of its python blocks runs."""

import os
import re
import subprocess

import pytest

import hwrec

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


def cli_commands(cli):
    """Every command of `hwrec --help`, with the subcommands its own help lists."""
    def commands_of(text, heading):
        block = text.split(heading, 1)[1].split("\n\n", 1)[0]
        return [line.split()[0] for line in block.splitlines()[1:] if line.startswith("  ")
                and not line.startswith("   ")]

    def help_of(*words):
        return subprocess.run([cli, *words, "--help"], capture_output=True, text=True,
                              check=True).stdout

    out = []
    for command in commands_of(help_of(), "Commands:"):
        text = help_of(command)
        subs = commands_of(text, "Subcommands:") if "Subcommands:" in text else []
        if not subs:
            # Usage lines such as "hwrec config get STORE KEY" name them too.
            subs = sorted({m for m in re.findall(r"^ *(?:Usage:)? *hwrec %s (\w+)" % command,
                                                 text, re.M) if m.islower() and m != "config"})
        out += [f"hwrec {command} {sub}" for sub in subs] or [f"hwrec {command}"]
        if "hwrec %s config" % command in text:
            out += [f"hwrec {command} config {sub}"
                    for sub in commands_of(help_of(command, "config"), "Subcommands:")]
    return out


def resolve_call(expression):
    """The object a call in the table names: `Store.x(...)` or `hwrec.x(...)`."""
    name = re.match(r"(?:hwrec\.)?([\w.]+)\(", expression).group(1)
    target = hwrec
    for part in name.split("."):
        target = getattr(target, part)
    return target


def test_every_cli_command_has_a_python_call_in_the_table():
    cli = os.environ.get("HWREC_CLI_PATH")
    if not cli or not os.path.exists(cli):
        pytest.skip("HWREC_CLI_PATH names no built hwrec CLI (ctest sets it)")
    text = (REPO / "docs" / "PYTHON.md").read_text()
    table = text.split("## CLI command → Python call", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`hwrec"):
            rows[cells[0].strip("`")] = cells[1]
    commands = cli_commands(cli)
    assert len(commands) >= 25
    missing = [c for c in commands if c not in rows]
    assert not missing, f"docs/PYTHON.md's table lacks {missing}"
    for command, calls in rows.items():
        named = re.findall(r"`([\w.]+\([^`]*\))`", calls)
        assert named, f"{command}: no call named"
        for call in named:
            assert callable(resolve_call(call)), f"{command}: {call} does not exist"
    assert set(rows) <= set(commands), "the table names a command the CLI lacks"
