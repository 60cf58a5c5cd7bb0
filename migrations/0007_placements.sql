-- Schema 7: placements. The effective request chosen for an execution on one
-- node pool, written after the choice, with where each figure came from, so
-- that what was applied can be inspected and joined with the observation.

CREATE TABLE placements (
  id INTEGER PRIMARY KEY,
  execution_id TEXT NOT NULL,
  workload TEXT NOT NULL,
  node_pool_id TEXT NOT NULL,
  policy TEXT NOT NULL CHECK (policy IN ('best_fit', 'first_fit')),
  gpu_count INTEGER NOT NULL CHECK (gpu_count >= 0),
  gpu_config_id TEXT,                -- NULL: CPU-only, or a pool of unknown GPU model
  gpu_memory_gb REAL,                -- per GPU
  gpu_compute_fraction REAL,         -- per GPU, share of one card
  cpu_request_millicores INTEGER,
  cpu_limit_millicores INTEGER,
  memory_bytes INTEGER,
  -- exact, gpu_model, instance_type, workload_any_hardware, declared, pinned,
  -- retry_floor or none, and the executions behind a recommended figure
  cpu_request_millicores_provenance TEXT NOT NULL,
  cpu_request_millicores_samples INTEGER NOT NULL,
  cpu_limit_millicores_provenance TEXT NOT NULL,
  cpu_limit_millicores_samples INTEGER NOT NULL,
  memory_bytes_provenance TEXT NOT NULL,
  memory_bytes_samples INTEGER NOT NULL,
  gpu_memory_gb_provenance TEXT NOT NULL,
  gpu_memory_gb_samples INTEGER NOT NULL,
  gpu_compute_fraction_provenance TEXT NOT NULL,
  gpu_compute_fraction_samples INTEGER NOT NULL,
  placed_at REAL NOT NULL
);

CREATE INDEX placements_by_execution ON placements (execution_id, placed_at);

-- What was applied beside what the execution then used (NULL until its
-- observation is ingested).
CREATE VIEW v_placements AS
SELECT p.execution_id,
       p.workload,
       p.node_pool_id,
       p.policy,
       p.gpu_count,
       p.gpu_config_id,
       p.gpu_memory_gb,
       p.gpu_memory_gb_provenance,
       p.gpu_compute_fraction,
       p.gpu_compute_fraction_provenance,
       p.cpu_request_millicores,
       p.cpu_request_millicores_provenance,
       p.cpu_limit_millicores,
       p.memory_bytes,
       p.memory_bytes_provenance,
       strftime('%Y-%m-%dT%H:%M:%SZ', p.placed_at, 'unixepoch') AS placed_at,
       o.status AS observed_status,
       o.gpu_memory_peak_gb AS observed_gpu_memory_peak_gb,
       o.cpu_millicores_p95 AS observed_cpu_millicores_p95,
       o.memory_peak_bytes AS observed_memory_peak_bytes
FROM placements p
LEFT JOIN observations o ON o.execution_id = p.execution_id;
