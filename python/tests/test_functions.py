"""hwrec.hardware_profile_id, hwrec.canonical_profile and hwrec.catalog."""

import json

import pytest

import hwrec
from conftest import REPO

VECTORS = REPO.parent / "shared" / "vectors" / "hardware_profile_ids.jsonl"
A100 = {"instance_type": "a2-ultragpu-1g", "architecture": "x86_64", "cpu_millicores": 12000,
        "memory_bytes": 182536110080, "gpu_count": 1, "gpu_mode": "full", "gpu_total": 1,
        "gpu_brand": "NVIDIA", "gpu_model": "A100 80GB"}


def test_hardware_profile_ids_and_canonical_forms():
    assert hwrec.hardware_profile_id(A100, version=1) == "hp:v1:a458059131523990"
    assert hwrec.hardware_profile_id(A100) == "hp:v2:93062af5d26b055e"
    assert hwrec.canonical_profile(A100, 1) == (
        '["hp:v1","a2-ultragpu-1g","x86_64",12000,182536110080,1,"full",1]')
    # Absent fields are null, but a profile must name something.
    assert hwrec.canonical_profile({"instance_type": "n2-standard-8"}) == (
        '["hp:v2","n2-standard-8",null,null,null,null,null,null,null,null]')
    with pytest.raises(ValueError, match="^profile names none of its fields"):
        hwrec.canonical_profile({})


@pytest.mark.skipif(not VECTORS.exists(), reason="the shared reference vectors are absent")
def test_every_reference_vector_matches():
    with open(VECTORS) as f:
        vectors = [json.loads(line) for line in f if line.strip()]
    for v in vectors:
        assert hwrec.canonical_profile(v["profile"], v["version"]) == v["canonical"], v
        assert hwrec.hardware_profile_id(v["profile"], v["version"]) == v["id"], v


def test_profile_errors_name_the_field():
    with pytest.raises(hwrec.InvalidArgumentError, match="gpu_count") as e:
        hwrec.hardware_profile_id({"gpu_count": "one"})
    assert e.value.code == "invalid_argument"
    with pytest.raises(hwrec.InvalidArgumentError, match="gpu_modle"):
        hwrec.hardware_profile_id({"gpu_modle": "L4"})
    with pytest.raises(hwrec.InvalidArgumentError, match="version"):
        hwrec.hardware_profile_id(A100, version=3)
    with pytest.raises(TypeError, match="profile"):
        hwrec.hardware_profile_id("A100")


def test_catalog_lists_and_searches_the_shipped_partitions():
    everything = hwrec.catalog()
    assert len(everything) > 10
    mig = hwrec.catalog("a100 80gb mig")
    assert mig and all(p.model == "A100 80GB" and p.mode.startswith("mig-") for p in mig)
    full = next(p for p in hwrec.catalog("h100") if p.mode == "full")
    assert full.brand == "NVIDIA" and full.compute_fraction == 1 and full.memory_gb > 0
    assert full.gpu_config_id.startswith("nvidia-h100")
    assert full.to_dict()["gpu_config_id"] == full.gpu_config_id
    assert repr(full).startswith("GpuPartition(gpu_config_id='nvidia-h100")
    assert hwrec.catalog("no such card") == []


def test_importing_the_source_folder_without_its_compiled_part_says_how_to_build_it(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    run = subprocess.run([sys.executable, "-c", "import hwrec"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "hwrec._hwrec is not beside" in run.stderr
    assert "--target hwrec_python" in run.stderr and "PYTHONPATH" in run.stderr
