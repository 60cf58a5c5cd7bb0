-- PostgreSQL dialect of migrations/0004_recommendations.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID).
-- Times read as UTC text with to_char (SQLite's strftime), and
-- confidence rounds through NUMERIC (round(DOUBLE PRECISION, n) does not exist).
--
-- Schema 4: recommendations. Per-key aggregates kept by ingest in the same
-- transaction as the observations, the estimator settings, the materialised
-- recommendations and readable views for the sqlite3 shell.

INSERT INTO config (key, value, description) VALUES
  ('half_life_hours', '12', 'hours after which an observation weighs half as much'),
  ('max_range_samples', '10', 'how many recent executions `max` looks at'),
  ('cpu_request.statistic', 'p95', 'statistic of per-execution CPU for the CPU request'),
  ('cpu_request.margin', '0.15', 'margin added to the CPU request'),
  ('cpu_limit.statistic', 'max', 'statistic of per-execution peak CPU for the CPU limit'),
  ('cpu_limit.margin', '0.30', 'margin added to the CPU limit'),
  ('memory.statistic', 'p98', 'statistic of memory peaks'),
  ('memory.margin', '0.15', 'margin added to memory'),
  ('gpu_memory.statistic', 'max', 'statistic of GPU memory peaks'),
  ('gpu_memory.margin', '0.10', 'margin added to GPU memory'),
  ('gpu_compute.statistic', 'p95', 'statistic of the observed share of one card'),
  ('gpu_compute.margin', '0.15', 'margin added to the compute share'),
  ('compute_ladder_step', '0.05', 'compute shares are rounded up to a multiple of this'),
  ('oom_bump_factor', '1.2', 'an OOM adds a peak of max(requested, observed) times this');

-- One row per workload and hardware key at four scopes: exact (brand, model,
-- instance type), gpu_model (brand, model), instance_type, any. '' stands for
-- an unknown part (the shared unknown population) or, for GPU parts, no GPU.
CREATE TABLE aggregates (
  workload_id BIGINT NOT NULL REFERENCES workloads (id),
  scope TEXT NOT NULL
    CHECK (scope = 'exact' OR scope = 'gpu_model' OR scope = 'instance_type' OR scope = 'any'),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  samples BIGINT NOT NULL,
  last_finished_at DOUBLE PRECISION NOT NULL,
  state BYTEA NOT NULL,              -- decayed histograms and recent values, hwrec format 1
  PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, instance_type)
);

-- What RecommendationQuery answers, per workload and hardware key, refreshed
-- for the keys each ingest touches and by `hwrec refresh`.
CREATE TABLE recommendations (
  workload_id BIGINT NOT NULL REFERENCES workloads (id),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  cpu_only BIGINT NOT NULL CHECK (cpu_only = 0 OR cpu_only = 1),
  cpu_request_millicores DOUBLE PRECISION,
  cpu_request_millicores_provenance TEXT NOT NULL,
  cpu_request_millicores_samples BIGINT NOT NULL,
  cpu_request_millicores_confidence DOUBLE PRECISION NOT NULL,
  cpu_request_millicores_lower DOUBLE PRECISION,
  cpu_request_millicores_upper DOUBLE PRECISION,
  cpu_limit_millicores DOUBLE PRECISION,
  cpu_limit_millicores_provenance TEXT NOT NULL,
  cpu_limit_millicores_samples BIGINT NOT NULL,
  cpu_limit_millicores_confidence DOUBLE PRECISION NOT NULL,
  cpu_limit_millicores_lower DOUBLE PRECISION,
  cpu_limit_millicores_upper DOUBLE PRECISION,
  memory_bytes DOUBLE PRECISION,
  memory_bytes_provenance TEXT NOT NULL,
  memory_bytes_samples BIGINT NOT NULL,
  memory_bytes_confidence DOUBLE PRECISION NOT NULL,
  memory_bytes_lower DOUBLE PRECISION,
  memory_bytes_upper DOUBLE PRECISION,
  gpu_memory_gb DOUBLE PRECISION,
  gpu_memory_gb_provenance TEXT NOT NULL,
  gpu_memory_gb_samples BIGINT NOT NULL,
  gpu_memory_gb_confidence DOUBLE PRECISION NOT NULL,
  gpu_memory_gb_lower DOUBLE PRECISION,
  gpu_memory_gb_upper DOUBLE PRECISION,
  gpu_compute_fraction DOUBLE PRECISION,
  gpu_compute_fraction_provenance TEXT NOT NULL,
  gpu_compute_fraction_samples BIGINT NOT NULL,
  gpu_compute_fraction_confidence DOUBLE PRECISION NOT NULL,
  gpu_compute_fraction_lower DOUBLE PRECISION,
  gpu_compute_fraction_upper DOUBLE PRECISION,
  as_of DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (workload_id, gpu_brand, gpu_model, instance_type, cpu_only)
);

CREATE VIEW v_recommendations AS
SELECT w.image AS workload,
       nullif(f.gpu_brand, '') AS gpu_brand,
       nullif(f.gpu_model, '') AS gpu_model,
       nullif(f.instance_type, '') AS instance_type,
       f.cpu_only,
       f.figure, f.value, f.provenance, f.samples,
       CAST(round(CAST(f.confidence AS NUMERIC), 3) AS DOUBLE PRECISION) AS confidence,
       f.lower, f.upper,
       to_char(to_timestamp(f.as_of) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS as_of
FROM (
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'cpu_request_millicores' AS figure,
         cpu_request_millicores AS value, cpu_request_millicores_provenance AS provenance, cpu_request_millicores_samples AS samples,
         cpu_request_millicores_confidence AS confidence, cpu_request_millicores_lower AS lower, cpu_request_millicores_upper AS upper
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'cpu_limit_millicores' AS figure,
         cpu_limit_millicores AS value, cpu_limit_millicores_provenance AS provenance, cpu_limit_millicores_samples AS samples,
         cpu_limit_millicores_confidence AS confidence, cpu_limit_millicores_lower AS lower, cpu_limit_millicores_upper AS upper
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'memory_bytes' AS figure,
         memory_bytes AS value, memory_bytes_provenance AS provenance, memory_bytes_samples AS samples,
         memory_bytes_confidence AS confidence, memory_bytes_lower AS lower, memory_bytes_upper AS upper
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'gpu_memory_gb' AS figure,
         gpu_memory_gb AS value, gpu_memory_gb_provenance AS provenance, gpu_memory_gb_samples AS samples,
         gpu_memory_gb_confidence AS confidence, gpu_memory_gb_lower AS lower, gpu_memory_gb_upper AS upper
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'gpu_compute_fraction' AS figure,
         gpu_compute_fraction AS value, gpu_compute_fraction_provenance AS provenance, gpu_compute_fraction_samples AS samples,
         gpu_compute_fraction_confidence AS confidence, gpu_compute_fraction_lower AS lower, gpu_compute_fraction_upper AS upper
  FROM recommendations
) AS f
JOIN workloads w ON w.id = f.workload_id;

CREATE VIEW v_observations AS
SELECT o.execution_id,
       w.image AS workload,
       to_char(to_timestamp(o.finished_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS finished_at,
       o.status, o.site_id, o.node_pool_id,
       o.gpu_brand, o.gpu_model, o.instance_type, o.gpu_mode,
       o.gpu_compute_fraction, o.fraction_source, o.gpu_utilization, o.gpu_memory_peak_gb,
       o.cpu_millicores_p95, o.cpu_millicores_max, o.memory_peak_bytes,
       o.hp_v2, o.profile_id_mismatch
FROM observations o
JOIN workloads w ON w.id = o.workload_id;
