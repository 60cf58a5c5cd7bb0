-- PostgreSQL dialect of migrations/0006_router.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID).
-- router_runpod's id is not an identity: its one row always names id 1.
--
-- Schema 6: the width-aware router (DESIGN §8). Everything the ladder is built
-- from is data: GCP machine types with the provisioning models each allows,
-- GPU quotas, SLURM lanes, the RunPod terminal rung, dispatch intents and the
-- router settings. The walker's per-UTC-day state (GCP attempt counter, quotas
-- found exhausted) is kept here too, so every process agrees on it.

CREATE TABLE router_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  description TEXT NOT NULL
);

INSERT INTO router_settings (key, value, description) VALUES
  ('short_job_max_hours', '6', 'jobs shorter than this lead with SPOT; longer ones with FLEX_START'),
  ('flex_start_max_hours', '168', 'longest run FLEX_START allows (7 days); longer jobs skip it'),
  ('gcp_daily_attempt_cap', '20', 'dispatches per UTC day that may try GCP (a whole walk counts once)');

-- GCP quotas per GPU family: on-demand (STANDARD) and preemptible (SPOT and
-- FLEX_START both draw on the preemptible quota).
CREATE TABLE router_quotas (
  gpu_model TEXT NOT NULL,
  class TEXT NOT NULL CHECK (class IN ('on_demand', 'preemptible')),
  metric TEXT NOT NULL,
  gpus BIGINT NOT NULL CHECK (gpus >= 0),
  PRIMARY KEY (gpu_model, class)
);

INSERT INTO router_quotas (gpu_model, class, metric, gpus) VALUES
  ('A100 40GB', 'on_demand', 'NVIDIA_A100_GPUS', 16),
  ('A100 40GB', 'preemptible', 'PREEMPTIBLE_NVIDIA_A100_GPUS', 16),
  ('A100 80GB', 'on_demand', 'NVIDIA_A100_80GB_GPUS', 16),
  ('A100 80GB', 'preemptible', 'PREEMPTIBLE_NVIDIA_A100_80GB_GPUS', 16),
  ('H100 80GB', 'on_demand', 'NVIDIA_H100_GPUS', 0),
  ('H100 80GB', 'preemptible', 'PREEMPTIBLE_NVIDIA_H100_GPUS', 8);

CREATE TABLE router_gcp_machines (
  machine_type TEXT PRIMARY KEY,
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  gpu_count BIGINT NOT NULL CHECK (gpu_count >= 1),
  vcpus BIGINT NOT NULL CHECK (vcpus >= 1),
  memory_gb DOUBLE PRECISION NOT NULL CHECK (memory_gb > 0),
  allows_spot BIGINT NOT NULL CHECK (allows_spot IN (0, 1)),
  allows_flex_start BIGINT NOT NULL CHECK (allows_flex_start IN (0, 1)),
  allows_standard BIGINT NOT NULL CHECK (allows_standard IN (0, 1)),
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
);

-- A3 High is offered with SPOT or FLEX_START only.
INSERT INTO router_gcp_machines (machine_type, gpu_brand, gpu_model, gpu_count, vcpus, memory_gb,
                                 allows_spot, allows_flex_start, allows_standard) VALUES
  ('a2-highgpu-1g', 'NVIDIA', 'A100 40GB', 1, 12, 85, 1, 1, 1),
  ('a2-highgpu-2g', 'NVIDIA', 'A100 40GB', 2, 24, 170, 1, 1, 1),
  ('a2-highgpu-4g', 'NVIDIA', 'A100 40GB', 4, 48, 340, 1, 1, 1),
  ('a2-highgpu-8g', 'NVIDIA', 'A100 40GB', 8, 96, 680, 1, 1, 1),
  ('a2-ultragpu-1g', 'NVIDIA', 'A100 80GB', 1, 12, 170, 1, 1, 1),
  ('a2-ultragpu-2g', 'NVIDIA', 'A100 80GB', 2, 24, 340, 1, 1, 1),
  ('a2-ultragpu-4g', 'NVIDIA', 'A100 80GB', 4, 48, 680, 1, 1, 1),
  ('a2-ultragpu-8g', 'NVIDIA', 'A100 80GB', 8, 96, 1360, 1, 1, 1),
  ('a3-highgpu-1g', 'NVIDIA', 'H100 80GB', 1, 26, 234, 1, 1, 0),
  ('a3-highgpu-2g', 'NVIDIA', 'H100 80GB', 2, 52, 468, 1, 1, 0),
  ('a3-highgpu-4g', 'NVIDIA', 'H100 80GB', 4, 104, 936, 1, 1, 0),
  ('a3-highgpu-8g', 'NVIDIA', 'H100 80GB', 8, 208, 1872, 1, 1, 0);

-- SLURM lanes, tried in `position` order after GCP.
CREATE TABLE router_slurm_lanes (
  lane TEXT PRIMARY KEY,
  position BIGINT NOT NULL UNIQUE,
  partition TEXT NOT NULL,
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  max_gpus BIGINT NOT NULL CHECK (max_gpus >= 1),
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
);

INSERT INTO router_slurm_lanes (lane, position, partition, gpu_brand, gpu_model, max_gpus) VALUES
  ('a100-80gb', 1, 'gpu-a100-80', 'NVIDIA', 'A100 80GB', 4),
  ('a100-40gb', 2, 'gpu-a100-40', 'NVIDIA', 'A100 40GB', 4);

-- The terminal rung: real dollars, so only after GCP and SLURM. Exactly one row.
CREATE TABLE router_runpod (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL,
  gpu_type TEXT NOT NULL,
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  max_gpus BIGINT NOT NULL CHECK (max_gpus >= 1),
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
);

INSERT INTO router_runpod (id, name, gpu_type, gpu_brand, gpu_model, max_gpus) VALUES
  (1, 'h100-80gb', 'NVIDIA H100 80GB HBM3', 'NVIDIA', 'H100 80GB', 8);

-- Dispatch intents: the single-GPU machine the legacy ladder maps each to, the
-- workload image whose recommendations say which cards fit, the narrowest width.
CREATE TABLE router_intents (
  intent TEXT PRIMARY KEY,
  workload_image TEXT NOT NULL,
  legacy_machine TEXT NOT NULL REFERENCES router_gcp_machines (machine_type),
  min_width BIGINT NOT NULL CHECK (min_width >= 1)
);

INSERT INTO router_intents (intent, workload_image, legacy_machine, min_width) VALUES
  ('capture-7b', 'ghcr.io/acme/capture-7b:1.0', 'a2-ultragpu-1g', 1),
  ('capture-13b', 'ghcr.io/acme/capture-13b:1.0', 'a2-ultragpu-1g', 1),
  ('eval-7b', 'ghcr.io/acme/eval-7b:1.0', 'a2-highgpu-1g', 1),
  ('eval-13b', 'ghcr.io/acme/eval-13b:1.0', 'a2-ultragpu-1g', 1),
  ('lora-7b', 'ghcr.io/acme/lora-7b:1.0', 'a2-ultragpu-1g', 1),
  ('lora-13b', 'ghcr.io/acme/lora-13b:1.0', 'a3-highgpu-1g', 1);

-- Dispatches per UTC day (YYYY-MM-DD) that tried GCP: a walk counts once.
CREATE TABLE router_gcp_attempts (
  day TEXT PRIMARY KEY,
  attempts BIGINT NOT NULL CHECK (attempts >= 0)
);

-- Quotas a launch found exhausted: their rungs are skipped for the rest of the UTC day.
CREATE TABLE router_quota_blocks (
  day TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  class TEXT NOT NULL CHECK (class IN ('on_demand', 'preemptible')),
  reason TEXT NOT NULL,
  blocked_at DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (day, gpu_model, class)
);
