"""Store.backtest: the replay of the store's own history, as the CLI's JSON."""

import types

import pytest

import hwrec


def test_backtest_returns_the_cli_json_shape(loaded):
    result = loaded.backtest(presets=["vpa", "autopilot"])
    assert [run["name"] for run in result["runs"]] == ["store", "vpa", "autopilot"]
    assert result["executions"] > 0
    for run in result["runs"]:
        for totals in [run["total"], *run["figures"].values(), *run["series"]]:
            assert {"scored", "cold", "overruns", "overrun_share", "mean_slack"} <= set(totals)
            assert 0 <= totals["overrun_share"] <= 1
            assert 0 <= totals["mean_slack"] <= 1
    # The same executions are scored under every rule.
    assert len({run["total"]["scored"] for run in result["runs"]}) == 1


def test_backtest_filters_and_overrides(loaded):
    result = loaded.backtest(figure="gpu_memory_gb", settings={"gpu_memory.margin": "0.5"})
    (run,) = result["runs"]
    assert run["settings"]["gpu_memory.margin"] == "0.5"
    assert list(run["figures"]) == ["gpu_memory_gb"]
    assert all(s["figure"] == "gpu_memory_gb" for s in run["series"])
    one = loaded.backtest(image="ghcr.io/acme/whisper-batch:1.2", figure="gpu_memory_gb")
    assert {s["workload"] for s in one["runs"][0]["series"]} <= {"ghcr.io/acme/whisper-batch:1.2"}


def test_backtest_refuses_what_it_cannot_replay(loaded):
    with pytest.raises(hwrec.InvalidArgumentError, match="karpenter"):
        loaded.backtest(presets=["karpenter"])
    with pytest.raises(hwrec.InvalidArgumentError,
                       match=r"^settings\['gpu_memory.statistic'\] must be one of"):
        loaded.backtest(settings={"gpu_memory.statistic": "p50"})
    with pytest.raises(hwrec.InvalidArgumentError, match=r"^settings\['memory.margin'\] must be .*got 'abc'"):
        loaded.backtest(settings={"memory.margin": "abc"})
    with pytest.raises(hwrec.InvalidArgumentError, match=r"^settings\['memory.bogus'\]: unknown config key"):
        loaded.backtest(settings={"memory.bogus": 1})
    with pytest.raises(hwrec.InvalidArgumentError, match="figure"):
        loaded.backtest(figure="gpu")
    with pytest.raises(hwrec.InvalidArgumentError, match="^gpu_model: .*did you mean A100 80GB"):
        loaded.backtest(gpu_model="A100-80GB")


def test_backtest_settings_take_numbers_and_bools_as_config_set_does(loaded):
    as_text = loaded.backtest(figure="memory_bytes", settings={"memory.margin": "0.2"})
    as_number = loaded.backtest(figure="memory_bytes", settings={"memory.margin": 0.2})
    assert as_number == as_text
    (run,) = as_number["runs"]
    assert run["settings"]["memory.margin"] == "0.2"
    whole = loaded.backtest(settings={"max_range_samples": 5, "fallback.cpu_memory_any_hardware": False})
    assert whole["runs"][0]["settings"]["max_range_samples"] == "5"
    assert whole["runs"][0]["settings"]["fallback.cpu_memory_any_hardware"] == "false"
    with pytest.raises(hwrec.InvalidArgumentError, match=r"settings\['memory.margin'\] is a list"):
        loaded.backtest(settings={"memory.margin": [0.2]})
    with pytest.raises(hwrec.InvalidArgumentError, match=r"^settings\['memory.margin'\] must be a number"):
        loaded.backtest(settings={"memory.margin": float("nan")})
    with pytest.raises(hwrec.InvalidArgumentError, match="is not text"):
        loaded.backtest(settings={1: "0.2"})
    proxy = loaded.backtest(figure="memory_bytes",
                            settings=types.MappingProxyType({"memory.margin": 0.2}))
    assert proxy == as_text
    with pytest.raises(hwrec.InvalidArgumentError, match="settings is a list"):
        loaded.backtest(settings=[("memory.margin", 0.2)])
