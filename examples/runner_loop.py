#!/usr/bin/python3
"""A small simulated Runner driving hwrec in-process through `import hwrec`.

It registers a heterogeneous inventory in the Runner's own RunnerNodePool
form, then for a stream of executions: places each across every pool
(best_fit, the chosen request recorded), "runs" it with usage replayed from a
real GenAI serving series (Alibaba cluster-trace-v2026-GenAI: GPU memory used
and GPU duty cycle per pod), ingests the finished execution in the Runner's
CompleteExecutionMetric form, retries a GPU OOM with a retry floor, and
finally routes a width-8 job whose wide rungs have no capacity. Everything it
prints is decided by hwrec; the same data and seed print the same log.

    PYTHONPATH=build/dev/python /usr/bin/python3 examples/runner_loop.py
        [--store PATH] [--data DIR] [--seed N]
"""

import argparse
import collections
import csv
import io
import os
import random
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import hwrec

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "alibaba-genai-v2026"
SAMPLE = REPO / "examples" / "data" / "genai_sample.csv"
GIB = 2**30
HOUR_S = 3600
HOURS_RUN = 4  # executions per GPU workload, one per hour of its series

Sample = Tuple[float, float, float]  # (timestamp, GPU memory bytes, duty %)
Series = Dict[str, List[Sample]]  # per pod, by time
Json = Dict[str, Any]

# The Runner's node pools, as its API serialises RunnerNodePool.
INVENTORY: List[Json] = [
    {"id": "a100-mig", "name": "A100 80GB split 3g.40gb", "site_id": "site-a",
     "cpu": 96, "memory": 1024 * GIB, "gpu": 4, "architecture": "x86_64",
     "gpu_mode": "mig-3g.40gb", "gpu_num_total": 8, "gpu_brand": "NVIDIA",
     "gpu_model": "A100 80GB", "instance_type": "dgx-a100", "maximum_time_in_sec": 86400},
    {"id": "a30-mig", "name": "A30 split 4g.24gb", "site_id": "site-a",
     "cpu": 64, "memory": 512 * GIB, "gpu": 2, "architecture": "x86_64",
     "gpu_mode": "mig-4g.24gb", "gpu_num_total": 2, "gpu_brand": "NVIDIA",
     "gpu_model": "A30", "instance_type": "on-prem-a30", "maximum_time_in_sec": 86400},
    {"id": "h100-full", "name": "H100 80GB, whole cards", "site_id": "site-b",
     "cpu": 208, "memory": 1862 * GIB, "gpu": 8, "architecture": "x86_64",
     "gpu_mode": "full", "gpu_num_total": 8, "gpu_brand": "NVIDIA",
     "gpu_model": "H100 80GB", "instance_type": "a3-highgpu-8g", "maximum_time_in_sec": 86400},
    {"id": "gpu-unrecorded", "name": "a GPU pool whose card was never recorded",
     "site_id": "site-b", "cpu": 16, "memory": 64 * GIB, "gpu": 1, "architecture": "x86_64",
     "gpu_mode": "full", "gpu_num_total": 1, "instance_type": "g2-standard-16",
     "maximum_time_in_sec": 86400},
    {"id": "cpu-only", "name": "CPU only", "site_id": "site-a", "cpu": 64,
     "memory": 256 * GIB, "gpu": 0, "architecture": "x86_64", "gpu_mode": None,
     "gpu_num_total": 0, "instance_type": "c2-standard-60", "maximum_time_in_sec": 86400},
]
# What the simulator knows and hwrec does not: the unrecorded card is an L4.
PARTITION_GB: Dict[str, int] = {"a100-mig": 40, "a30-mig": 24, "h100-full": 80, "gpu-unrecorded": 24}

# (image, which pod of the series by peak, what its author declared)
WORKLOADS: List[Tuple[str, str, Json]] = [
    ("ghcr.io/acme/sd-lite:1.0", "smallest", {"gpu_count": 1, "gpu_memory_gb": 16,
                                              "cpu_millicores": 2000, "memory_bytes": 16 * GIB}),
    ("ghcr.io/acme/sd-serve:2.1", "median", {"gpu_count": 1, "gpu_memory_gb": 20,
                                             "cpu_millicores": 4000, "memory_bytes": 24 * GIB}),
    ("ghcr.io/acme/sd-xl-lora:0.7", "largest", {"gpu_count": 1, "gpu_memory_gb": 30,
                                                "cpu_millicores": 4000, "memory_bytes": 32 * GIB}),
]
CPU_WORKLOAD: Tuple[str, Json] = ("ghcr.io/acme/feature-etl:0.9",
                {"gpu_count": 0, "cpu_millicores": 8000, "memory_bytes": 32 * GIB})


def read_trace(data_dir: Path) -> Series:
    """Per pod: sorted (timestamp, GPU memory bytes, duty %) from the real trace."""
    def series(name: str) -> Dict[Tuple[str, float], float]:
        with tarfile.open(data_dir / f"{name}.tar.gz") as tar:
            member = tar.getmembers()[0]
            extracted = tar.extractfile(member)
            assert extracted is not None, f"{name}: its first member is not a file"
            rows = csv.DictReader(io.TextIOWrapper(extracted))
            return {(r["container_ip"], float(r["timestamp_anon"])): float(r["value"])
                    for r in rows}
    memory = series("pod_gpu_memory_used_bytes_anon")
    duty = series("pod_gpu_duty_cycle_anon")
    pods: Dict[str, List[Sample]] = collections.defaultdict(list)
    for (pod, t), used in memory.items():
        if (pod, t) in duty:
            pods[pod].append((t, used, duty[(pod, t)]))
    # Pods seen all day long only: a short series is a pod that came or went.
    return {pod: sorted(s) for pod, s in pods.items() if len(s) >= 24 * 60}


def read_sample(path: Path) -> Series:
    pods: Dict[str, List[Sample]] = collections.defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            pods[r["container_ip"]].append((float(r["timestamp_anon"]),
                                            float(r["gpu_memory_used_bytes"]),
                                            float(r["gpu_duty_cycle"])))
    return {pod: sorted(s) for pod, s in pods.items()}


def load_series(data_arg: Optional[str]) -> Series:
    data_dir = Path(data_arg) if data_arg else DEFAULT_DATA
    # The folder as given, or the default's place beside the checkout: never
    # the path of the machine that built it.
    shown = data_arg if data_arg else f"../shared/data/{DEFAULT_DATA.name}"
    if (data_dir / "pod_gpu_memory_used_bytes_anon.tar.gz").exists():
        print(f"GPU usage: the Alibaba GenAI trace in {shown} (GPU memory, duty cycle per pod)")
        return read_trace(data_dir)
    print(f"GPU usage: {shown} not found; using the bundled synthetic sample {SAMPLE.name}")
    return read_sample(SAMPLE)


def pick_pods(pods: Series) -> Dict[str, str]:
    """The smallest, median and largest pod by peak GPU memory (ties by id)."""
    ranked = sorted(pods, key=lambda p: (max(s[1] for s in pods[p]), p))
    return {"smallest": ranked[0], "median": ranked[len(ranked) // 2], "largest": ranked[-1]}


def hour_window(samples: List[Sample], hour: int) -> Tuple[float, List[Sample]]:
    start = samples[0][0] + hour * HOUR_S
    window = [s for s in samples if start <= s[0] < start + HOUR_S]
    return start, window


def candidates() -> List[hwrec.Candidate]:
    """Every pool, with the free capacity the simulated cluster has now."""
    return [{"node_pool_id": p["id"], "free_partitions": 2 if p["gpu"] else 0,
             "free_cpu_millicores": 32000, "free_memory_bytes": 128 * GIB} for p in INVENTORY]


def fmt_gb(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f} GiB"


def describe_choice(placement: hwrec.Placement) -> hwrec.CandidateEvaluation:
    chosen = next(c for c in placement.candidates if c.node_pool_id == placement.chosen)
    r = chosen.request
    origin = r.origins  # figure name -> where its value came from
    memory = "-" if r.memory_bytes is None else f"{r.memory_bytes / GIB:.1f} GiB"
    parts = [f"cpu {r.cpu_request_millicores}m [{origin['cpu_request_millicores']}]",
             f"memory {memory} [{origin['memory_bytes']}]"]
    if r.gpu_count:
        parts[:0] = [f"{r.gpu_count} x {r.gpu_config_id}",
                     f"gpu_memory {fmt_gb(r.gpu_memory_gb)} [{origin['gpu_memory_gb']}]"]
    print(f"  placed on {placement.chosen}: {', '.join(parts)}")
    passed = [f"{c.node_pool_id} ({c.reason})" for c in placement.candidates if not c.feasible]
    if passed:
        print(f"    not feasible: {'; '.join(passed)}")
    return chosen


def complete_execution_metric(execution_id: str, image: str, pool: Json,
                              placement: hwrec.Placement, start: float, end: float,
                              status: str, usage: Dict[str, float]) -> Json:
    """The record the Runner's worker sends when an execution ends: what it was
    given is hwrec's answer in the Runner's own units."""
    allocation = placement.runner_allocation
    assert allocation is not None, "a record is sent only for a placed execution"
    metrics: Json = {"cpu_avg": usage["cpu"], "cpu_p95": usage["cpu"] * 1.3,
                     "cpu_max": usage["cpu"] * 1.6, "memory_max": usage["memory"]}
    record: Json = {
        "execution_id": execution_id, "action_container_image": image,
        "site_id": pool["site_id"], "node_pool_id": pool["id"],
        "started_at": start, "ended_at": end, "status": status,
        "instance_type": pool["instance_type"], "node_pool_gpu": pool["gpu"],
        "node_pool_gpu_mode": pool["gpu_mode"], "node_pool_gpu_num_total": pool["gpu_num_total"],
        # gpu: the GPUs the execution itself held, not the node's node_pool_gpu.
        "resources_allocation": allocation,
        "metrics": metrics,
    }
    if allocation["gpu"]:
        metrics["gpu_util"] = usage["gpu_util"]
        metrics["gpu_memory_max_mib"] = usage["gpu_memory_gb"] * 1024
        # Stamped on StartExecutionV2 at placement: the share the pool gave,
        # unknown (left out) where its partitioning is not recorded.
        if placement.compute_fraction is not None:
            metrics["gpu_compute_fraction"] = placement.compute_fraction
    return record


def ingest(store: hwrec.Store, record: Json) -> bool:
    summary = store.ingest(record)
    for reject in summary.rejects:
        print(f"    REJECTED by ingest: {reject.field}: {reject.reason}")
    for warning in summary.warnings:
        print(f"    ingest warning: {warning.field}: {warning.message}")
    return summary.rejected == 0


class Runner:
    def __init__(self, store: hwrec.Store, rng: random.Random) -> None:
        self.store = store
        self.rng = rng
        self.pools = {p["id"]: p for p in INVENTORY}
        self.sequence = 0
        self.ok = True

    def next_id(self) -> str:
        self.sequence += 1
        return f"ex-{self.sequence:04d}"

    def run_gpu(self, image: str, declared: Json, start: float, window: List[Sample],
                label: str) -> None:
        """Places, runs and ingests one execution; retries a GPU OOM with a floor."""
        execution_id = self.next_id()
        execution: Json = {"image": image, "declared": declared}
        peak_gb = max(s[1] for s in window) / GIB
        for attempt in range(3):
            print(f"[{execution_id}] {image} ({label}){' retry' if attempt else ''}")
            placement = self.store.place(execution, candidates(), as_of=start, record=execution_id)
            if placement.chosen is None:
                print("  no pool can take it: " + "; ".join(c.reason for c in placement.candidates))
                self.ok = False
                return
            request = describe_choice(placement).request
            pool = self.pools[placement.chosen]
            held = PARTITION_GB.get(pool["id"], 0)
            oom = request.gpu_count > 0 and peak_gb > held
            reached = [s for s in window if s[1] / GIB > held] if oom else []
            end = reached[0][0] if oom else start + HOUR_S
            usage = {"gpu_memory_gb": held if oom else peak_gb,
                     "gpu_util": sum(s[2] for s in window) / len(window),
                     "cpu": 1.5 + self.rng.uniform(0, 1.0), "memory": (10 + peak_gb / 4) * GIB}
            status = "GPUOOMKilled" if oom else "Success"
            record = complete_execution_metric(execution_id, image, pool, placement, start, end,
                                               status, usage)
            self.ok &= ingest(self.store, record)
            if not oom:
                print(f"  ran {(end - start) / 60:.0f} min: GPU memory peak {peak_gb:.1f} GiB, "
                      f"util {usage['gpu_util']:.1f} % -> Success, ingested")
                return
            # The floor is hwrec's: the recorded OOM bumped by the store's oom_bump_factor.
            floor = self.store.retry_floor(execution_id)
            print(f"  OOM: needed {peak_gb:.1f} GiB, the {held} GiB partition ran out after "
                  f"{(end - start) / 60:.0f} min -> GPUOOMKilled ingested; "
                  f"retrying with retry_floor gpu_memory_gb {floor.retry_floor['gpu_memory_gb']}")
            execution["retry_floor"] = floor
            execution_id = f"{execution_id.split('-r')[0]}-r{attempt + 1}"
            start = end
        self.ok = False

    def run_cpu(self, start: float, label: str) -> None:
        image, declared = CPU_WORKLOAD
        execution_id = self.next_id()
        print(f"[{execution_id}] {image} ({label})")
        placement = self.store.place({"image": image, "declared": declared}, candidates(),
                                     as_of=start, record=execution_id)
        assert placement.chosen is not None, "the CPU pool takes the CPU workload"
        describe_choice(placement)
        cores = 5.0 + self.rng.uniform(0, 1.5)
        usage = {"cpu": cores, "memory": (20 + self.rng.uniform(0, 6)) * GIB}
        record = complete_execution_metric(execution_id, image, self.pools[placement.chosen],
                                           placement, start, start + HOUR_S, "Success", usage)
        self.ok &= ingest(self.store, record)
        print(f"  ran 60 min: {cores:.1f} cores avg, {usage['memory'] / GIB:.1f} GiB peak "
              f"-> Success, ingested")


def register_inventory(store: hwrec.Store) -> bool:
    summary = store.register_pools(INVENTORY)
    print(f"registered {summary.registered} RunnerNodePool records "
          f"({', '.join(p['id'] for p in INVENTORY)}), rejected {summary.rejected}")
    for reject in summary.rejects:
        print(f"  rejected {reject.node_pool_id}: {reject.field}: {reject.reason}")
    return summary.rejected == 0


def report_recommendations(store: hwrec.Store) -> None:
    print("\nwhat hwrec now recommends (gpu_memory_gb per pool):")
    for image, _, _ in WORKLOADS:
        figures = []
        for pool in ("a30-mig", "a100-mig", "h100-full", "gpu-unrecorded"):
            f = store.recommend(image, pool=pool).figures["gpu_memory_gb"]
            figures.append(f"{pool} {fmt_gb(f.value)} [{f.provenance}, {f.samples}]")
        print(f"  {image}: {'; '.join(figures)}")


def route_wide_job(store: hwrec.Store, now: float) -> bool:
    print("\nroute capture-7b, width 8, 2 days; the 8- and 4-wide GCP machines have no capacity")
    plan = store.route("capture-7b", 8, "2d", as_of=now, sharded=True)
    print(f"  ladder ({len(plan.ladder)} rungs, {plan.length_class}): "
          + ", ".join(r.id for r in plan.ladder[:4]) + ", ...")
    for pruned in plan.pruned:
        print(f"  pruned {pruned.id}: {pruned.reason}")

    def launcher(rung: hwrec.Rung) -> Union[Tuple[str, str], str]:
        if rung.backend == "gcp" and rung.width > 2:
            return ("capacity_miss", f"no {rung.width}-wide capacity (simulated)")
        return "launched"

    # The walk is recorded on the day it runs: the router counts each day's
    # GCP attempts against its daily limit.
    result = store.walk(plan, launcher)
    for attempt in result.attempts:
        detail = f" ({attempt.detail})" if attempt.detail else ""
        print(f"  walked {attempt.rung.id}: {attempt.outcome}{detail}")
    selected = result.selected.id if result.selected else "nothing"
    print(f"  selected {selected}: realized width {result.realized_width} of "
          f"{result.requested_width}{' (degraded)' if result.degraded else ''}")
    day = store.router_day()
    print(f"  GCP attempts counted today: {day.gcp_attempts} (one walk counts once)")
    return result.realized_width == 2 and result.degraded


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store", help="create the store at PATH (default: a temp dir)")
    parser.add_argument("--data", help="the GenAI trace folder (default: "
                        f"../shared/data/{DEFAULT_DATA.name}, beside the checkout)")
    parser.add_argument("--seed", type=int, default=13, help="seed of the synthetic CPU figures")
    args = parser.parse_args()

    pods = load_series(args.data)
    chosen = pick_pods(pods)
    print("CPU and host memory figures are synthetic (seeded); the series has GPU figures only")
    with tempfile.TemporaryDirectory() as scratch:
        path = args.store or os.path.join(scratch, "runner.hwrec")
        if os.path.exists(path):
            sys.exit(f"runner_loop: {path} exists: remove it or pass another --store")
        with hwrec.Store.init(path) as store:
            ok = register_inventory(store)
            runner = Runner(store, random.Random(args.seed))
            last = 0.0
            start = 0.0
            for hour in range(HOURS_RUN):
                for image, rank, declared in WORKLOADS:
                    start, window = hour_window(pods[chosen[rank]], hour)
                    runner.run_gpu(image, declared, start, window, f"{rank} pod, hour {hour}")
                    last = max(last, start + HOUR_S)
                if hour % 2 == 0:
                    runner.run_cpu(start, f"hour {hour}")
            report_recommendations(store)
            routed = route_wide_job(store, last)
    return 0 if ok and runner.ok and routed else 1


if __name__ == "__main__":
    sys.exit(main())
