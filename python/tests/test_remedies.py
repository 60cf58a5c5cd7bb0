"""Errors raised through the module name the Python call that fixes them, not
the CLI command: each remedy has one identity that each host words its own
way, and the Python words name calls that exist."""

import os
import re
import subprocess

import pytest

import hwrec
from hwrec import _hwrec

from test_docs import cli_commands, resolve_call


def test_every_remedy_is_worded_for_each_host_and_the_python_words_name_real_calls():
    remedies = _hwrec._remedies()
    assert len(remedies) == 18
    for name, cli, python, cpp in remedies:
        assert cli.startswith("`hwrec ") and "STORE" in cli or name in ("copy", "hardware_id"), name
        assert "hwrec " not in python and "hwrec::" in cpp, name
        call = python.strip("`")
        assert callable(resolve_call(call)), f"{name}: {call} is not a call of the module"


def test_every_cli_remedy_names_a_command_and_flags_the_cli_has():
    cli = os.environ.get("HWREC_CLI_PATH")
    if not cli or not os.path.exists(cli):
        pytest.skip("HWREC_CLI_PATH names no built hwrec CLI (ctest sets it)")
    commands = set(cli_commands(cli))
    for name, text, _, _ in _hwrec._remedies():
        words = text.strip("`").split()
        command = []
        for word in words:
            if word.startswith("-") or word.isupper():
                break
            command.append(word)
        command = " ".join(command)
        assert command in commands, (name, command)
        flags = [w for w in words if w.startswith("--")]
        if flags:
            usage = subprocess.run([cli, *command.split()[1:], "--help"], capture_output=True,
                                   text=True, check=True).stdout
            for flag in flags:
                assert re.search(re.escape(flag) + r"\b", usage), (name, flag)


def test_errors_from_the_library_name_python_calls(tmp_path, store):
    cases = [
        (lambda: hwrec.Store(tmp_path / "missing.db"), hwrec.NotFoundError, "hwrec.Store.init("),
        (lambda: store.config_get("memory.margn"), hwrec.NotFoundError, "`Store.config()`"),
        (lambda: store.route("no-such-intent", 1, "1h"), hwrec.NotFoundError,
         "`Store.import_router_config(config)`"),
        (lambda: store.resolve_quarantine(all=True, gpu_model="Z9"), hwrec.Error, None),
        (lambda: store.import_router_config({"gcp_machines": [{
            "machine_type": "x9-1g", "gpu_model": "Z9", "gpu_brand": "NVIDIA", "gpu_count": 1,
            "vcpus": 12, "memory_gb": 85.0, "provisioning": ["SPOT"]}]}),
         hwrec.InvalidArgumentError,
         "`Store.import_catalog(csv)`"),
    ]
    for call, error, words in cases:
        with pytest.raises(error) as e:
            call()
        if words:
            assert words in e.value.message
        assert "`hwrec " not in e.value.message, e.value.message
    placement = store.place({"image": "any:1"}, ["no-such-pool"])
    assert placement.candidates[0].reason.endswith("`Store.register_pools(pools)`")
