#!/usr/bin/python3
"""Writes genai_sample.csv: a small synthetic stand-in for the Alibaba GenAI
(cluster-trace-v2026-GenAI) per-pod GPU series, for examples/runner_loop.py
when ../shared/data is absent. Nothing here is read from the real trace: the
three pods are drawn from a seeded random walk shaped like it (a resident
model, spikes while serving, a duty cycle that follows the load).

Run: /usr/bin/python3 examples/data/make_genai_sample.py > examples/data/genai_sample.csv
"""

import hashlib
import random

SEED = 13
START = 1662858720  # the trace's anonymised clock starts here
STEP_S = 600  # one sample every 10 minutes (the trace has one a minute)
HOURS = 6

# (name, resident GiB, spike GiB, chance of a spike per sample, busy duty %)
PODS = [
    ("synthetic-pod-small", 14.5, 2.5, 0.10, 0.5),
    ("synthetic-pod-medium", 24.0, 9.0, 0.25, 12.0),
    ("synthetic-pod-large", 27.0, 15.0, 0.30, 18.0),
]


def main():
    rng = random.Random(SEED)
    print("timestamp_anon,container_ip,gpu_memory_used_bytes,gpu_duty_cycle")
    for name, resident, spike, spike_chance, busy in PODS:
        pod = hashlib.md5(name.encode()).hexdigest()
        for i in range(HOURS * 3600 // STEP_S):
            spiking = rng.random() < spike_chance
            gib = resident + rng.uniform(0, 0.4) + (rng.uniform(0.3, 1.0) * spike if spiking else 0)
            duty = max(0.0, rng.gauss(busy * (2.5 if spiking else 1.0), busy / 3 + 0.1))
            print(f"{START + i * STEP_S:.1f},{pod},{round(gib * 2**30):.1f},{min(duty, 100):.1f}")


if __name__ == "__main__":
    main()
