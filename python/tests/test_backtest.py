"""Store.backtest: the replay of the store's own history, the totals the CLI shows."""

import os
import types

import pytest

import hwrec


def test_backtest_gives_every_runs_totals(loaded):
    result = loaded.backtest(presets=["vpa", "autopilot"])
    assert [run.name for run in result.runs] == ["store", "vpa", "autopilot"]
    assert result.executions > 0
    for run in result.runs:
        for totals in [run.total, *run.figures.values(), *(s.totals for s in run.series)]:
            assert isinstance(totals, hwrec.BacktestTotals)
            assert 0 <= totals.overrun_share <= 1
            assert 0 <= totals.mean_slack <= 1
        assert run.total.over_provisioned in (None, 0)  # mixes units: read it per figure
    # The same executions are scored under every rule.
    assert len({run.total.scored for run in result.runs}) == 1
    memory = result.runs[0].figures["memory_bytes"]
    assert memory.with_duration > 0 and memory.over_provisioned >= 0
    assert result.to_dict()["runs"][0]["figures"]["memory_bytes"] == memory.to_dict()


def test_backtest_gives_the_figures_the_cli_json_gives(loaded, store_path):
    import json
    import subprocess
    cli = os.environ.get("HWREC_CLI_PATH")
    if not cli or not os.path.exists(cli):
        pytest.skip("HWREC_CLI_PATH names no built hwrec CLI (ctest sets it)")
    out = subprocess.run([cli, "backtest", str(store_path), "--format", "json", "--preset", "vpa"],
                         capture_output=True, text=True, check=True).stdout
    printed = json.loads(out)
    result = loaded.backtest(presets=["vpa"])
    assert printed["executions"] == result.executions
    for shown, run in zip(printed["runs"], result.runs):
        assert shown["name"] == run.name and shown["settings"] == run.settings
        assert shown["total"]["scored"] == run.total.scored
        assert shown["total"]["overrun_share"] == pytest.approx(run.total.overrun_share, abs=1e-6)
        for name, totals in run.figures.items():
            assert shown["figures"][name]["overruns"] == totals.overruns
        assert [(s["workload"], s["figure"], s["scored"]) for s in shown["series"]] == [
            (s.workload, s.figure, s.totals.scored) for s in run.series]


def test_backtest_filters_and_overrides(loaded):
    result = loaded.backtest(figure="gpu_memory_gb", settings={"gpu_memory.margin": "0.5"})
    (run,) = result.runs
    assert run.settings["gpu_memory.margin"] == "0.5"
    assert list(run.figures) == ["gpu_memory_gb"]
    assert all(s.figure == "gpu_memory_gb" for s in run.series)
    one = loaded.backtest(image="ghcr.io/acme/whisper-batch:1.2", figure="gpu_memory_gb")
    assert {s.workload for s in one.runs[0].series} <= {"ghcr.io/acme/whisper-batch:1.2"}


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
    assert as_number.to_dict() == as_text.to_dict()
    (run,) = as_number.runs
    assert run.settings["memory.margin"] == "0.2"
    whole = loaded.backtest(settings={"max_range_samples": 5, "fallback.cpu_memory_any_hardware": False})
    assert whole.runs[0].settings["max_range_samples"] == "5"
    assert whole.runs[0].settings["fallback.cpu_memory_any_hardware"] == "false"
    with pytest.raises(hwrec.InvalidArgumentError, match=r"settings\['memory.margin'\] is a list"):
        loaded.backtest(settings={"memory.margin": [0.2]})
    with pytest.raises(hwrec.InvalidArgumentError, match=r"^settings\['memory.margin'\] must be a number"):
        loaded.backtest(settings={"memory.margin": float("nan")})
    with pytest.raises(hwrec.InvalidArgumentError, match="is not text"):
        loaded.backtest(settings={1: "0.2"})
    proxy = loaded.backtest(figure="memory_bytes",
                            settings=types.MappingProxyType({"memory.margin": 0.2}))
    assert proxy.to_dict() == as_text.to_dict()
    with pytest.raises(hwrec.InvalidArgumentError, match="settings is a list"):
        loaded.backtest(settings=[("memory.margin", 0.2)])


def test_backtest_counts_first_executions_on_a_new_card_and_transfers_them(transfer_store):
    # new:1 moves to the H100: two executions sized before either finished.
    summary = transfer_store.ingest([
        {"execution_id": f"new-h100-{i}", "action_image": "new:1", "finished_at": 1795975200 + i,
         "duration_s": 600, "node_pool_id": "siteb-h100-80gb", "gpu_utilization": 0.45}
        for i in range(2)])
    assert summary.rejected == 0, summary.rejects
    result = transfer_store.backtest(image="new:1", figure="gpu_compute_fraction",
                                     presets=["vpa"])
    store_run, vpa = result.runs
    [on_h100] = [s for s in store_run.series if s.hardware["gpu_model"] == "H100 80GB"]
    assert on_h100.totals.new_card == 2
    assert on_h100.totals.transferred == 2  # the store's setting allows it
    assert on_h100.totals.new_card_overruns == 0
    assert store_run.figures["gpu_compute_fraction"].transferred == 2
    assert vpa.figures["gpu_compute_fraction"].new_card == 2  # every run counts the same ones
    # An override turns the store's setting off: the two are cold again.
    off = transfer_store.backtest(image="new:1", figure="gpu_compute_fraction",
                                  settings={"gpu_compute.transfer": False})
    totals = off.runs[0].figures["gpu_compute_fraction"]
    assert (totals.new_card, totals.new_card_scored, totals.transferred) == (2, 0, 0)
    assert totals.to_dict()["new_card"] == 2
