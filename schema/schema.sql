-- hwrec schema 4: generated from migrations/ by the `schema` build target.
-- Do not edit; change migrations/ and rebuild.

CREATE TABLE aggregates (
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  scope TEXT NOT NULL CHECK (scope IN ('exact', 'gpu_model', 'instance_type', 'any')),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  samples INTEGER NOT NULL,
  last_finished_at REAL NOT NULL,
  state BLOB NOT NULL,               -- decayed histograms and recent values, hwrec format 1
  PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, instance_type)
) WITHOUT ROWID;

CREATE TABLE config (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  description TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE gpu_models (
  brand TEXT NOT NULL,
  model TEXT NOT NULL,
  memory_gb REAL NOT NULL CHECK (memory_gb > 0),
  compute_slices INTEGER NOT NULL CHECK (compute_slices >= 1),
  source TEXT NOT NULL DEFAULT 'seed' CHECK (source IN ('seed', 'import')),
  PRIMARY KEY (brand, model)
) WITHOUT ROWID;

CREATE TABLE gpu_partitions (
  gpu_config_id TEXT PRIMARY KEY,
  brand TEXT NOT NULL,
  model TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode = 'full' OR mode LIKE 'mig-%'),
  memory_gb REAL NOT NULL CHECK (memory_gb > 0),
  compute_slices INTEGER NOT NULL CHECK (compute_slices >= 1),
  compute_fraction REAL NOT NULL CHECK (compute_fraction > 0 AND compute_fraction <= 1),
  UNIQUE (brand, model, mode),
  FOREIGN KEY (brand, model) REFERENCES gpu_models (brand, model)
) WITHOUT ROWID;

CREATE TABLE ingest_conflicts (
  id INTEGER PRIMARY KEY,
  execution_id TEXT NOT NULL,
  source TEXT NOT NULL,
  line INTEGER NOT NULL,
  record TEXT NOT NULL,              -- the re-sent record that was not stored
  seen_at REAL NOT NULL
);

CREATE TABLE ingest_rejects (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  line INTEGER NOT NULL,
  execution_id TEXT,
  field TEXT NOT NULL,
  reason TEXT NOT NULL,
  record TEXT NOT NULL,              -- the record as received
  rejected_at REAL NOT NULL
);

CREATE TABLE node_pools (
  node_pool_id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  instance_type TEXT,
  architecture TEXT,
  cpu_millicores INTEGER CHECK (cpu_millicores >= 0),
  memory_bytes INTEGER CHECK (memory_bytes >= 0),
  gpu_brand TEXT,
  gpu_model TEXT,                    -- NULL: unknown model, never guessed
  gpu_count INTEGER NOT NULL DEFAULT 0 CHECK (gpu_count >= 0),
  gpu_mode TEXT,
  gpu_total INTEGER NOT NULL DEFAULT 0 CHECK (gpu_total >= 0),
  hp_v1 TEXT NOT NULL,
  hp_v2 TEXT NOT NULL,
  registered_at REAL NOT NULL,
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
) WITHOUT ROWID;

CREATE TABLE observations (
  id INTEGER PRIMARY KEY,
  execution_id TEXT NOT NULL UNIQUE,
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  finished_at REAL NOT NULL,
  site_id TEXT,
  node_pool_id TEXT,
  status TEXT NOT NULL
    CHECK (status IN ('success', 'oom', 'gpu_oom', 'failed', 'cancelled')),
  duration_s REAL,
  instance_type TEXT,
  architecture TEXT,
  cpu_millicores INTEGER,
  memory_bytes INTEGER,
  gpu_count INTEGER,
  gpu_mode TEXT,
  gpu_total INTEGER,
  gpu_brand TEXT,
  gpu_model TEXT,
  hp_v1 TEXT NOT NULL,
  hp_v2 TEXT NOT NULL,
  sent_profile_id TEXT,              -- hardware_profile_id as the Runner sent it
  profile_id_mismatch INTEGER NOT NULL DEFAULT 0 CHECK (profile_id_mismatch IN (0, 1)),
  gpu_compute_fraction REAL,
  fraction_source TEXT NOT NULL
    CHECK (fraction_source IN ('none', 'stamped', 'catalog', 'assumed')),
  gpu_utilization REAL,
  gpu_memory_peak_gb REAL,
  cpu_millicores_avg REAL,
  cpu_millicores_p95 REAL,
  cpu_millicores_max REAL,
  memory_peak_bytes INTEGER,
  requested_cpu_millicores INTEGER,
  requested_memory_bytes INTEGER,
  requested_gpu_memory_gb REAL,
  requested_gpu_compute_fraction REAL,
  content_hash BLOB NOT NULL,        -- SHA-256 of the normalised record
  ingested_at REAL NOT NULL
);

CREATE TABLE recommendations (
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  cpu_only INTEGER NOT NULL CHECK (cpu_only IN (0, 1)),
  cpu_request_millicores REAL,
  cpu_request_millicores_provenance TEXT NOT NULL,
  cpu_request_millicores_samples INTEGER NOT NULL,
  cpu_request_millicores_confidence REAL NOT NULL,
  cpu_request_millicores_lower REAL,
  cpu_request_millicores_upper REAL,
  cpu_limit_millicores REAL,
  cpu_limit_millicores_provenance TEXT NOT NULL,
  cpu_limit_millicores_samples INTEGER NOT NULL,
  cpu_limit_millicores_confidence REAL NOT NULL,
  cpu_limit_millicores_lower REAL,
  cpu_limit_millicores_upper REAL,
  memory_bytes REAL,
  memory_bytes_provenance TEXT NOT NULL,
  memory_bytes_samples INTEGER NOT NULL,
  memory_bytes_confidence REAL NOT NULL,
  memory_bytes_lower REAL,
  memory_bytes_upper REAL,
  gpu_memory_gb REAL,
  gpu_memory_gb_provenance TEXT NOT NULL,
  gpu_memory_gb_samples INTEGER NOT NULL,
  gpu_memory_gb_confidence REAL NOT NULL,
  gpu_memory_gb_lower REAL,
  gpu_memory_gb_upper REAL,
  gpu_compute_fraction REAL,
  gpu_compute_fraction_provenance TEXT NOT NULL,
  gpu_compute_fraction_samples INTEGER NOT NULL,
  gpu_compute_fraction_confidence REAL NOT NULL,
  gpu_compute_fraction_lower REAL,
  gpu_compute_fraction_upper REAL,
  as_of REAL NOT NULL,
  PRIMARY KEY (workload_id, gpu_brand, gpu_model, instance_type, cpu_only)
) WITHOUT ROWID;

CREATE TABLE schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at TEXT NOT NULL
);

CREATE TABLE site_observations (
  id INTEGER PRIMARY KEY,
  execution_id TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  action_image TEXT NOT NULL,
  node_pool_id TEXT,
  finished_at REAL NOT NULL,
  status TEXT NOT NULL DEFAULT 'success',
  duration_s REAL,
  hardware_profile_id TEXT,          -- hp:v1:…
  instance_type TEXT,
  architecture TEXT,
  cpu_millicores INTEGER,
  memory_bytes INTEGER,
  gpu_count INTEGER,
  gpu_mode TEXT,
  gpu_total INTEGER,
  node_pool_gpu TEXT,                -- the pool's GPU name when the Runner sent it
  gpu_compute_fraction REAL,
  gpu_utilization REAL,
  gpu_memory_peak_gb REAL,
  cpu_millicores_avg REAL,
  cpu_millicores_p95 REAL,
  cpu_millicores_max REAL,
  memory_peak_bytes INTEGER,
  requested_cpu_millicores INTEGER,
  requested_memory_bytes INTEGER,
  requested_gpu_memory_gb REAL,
  requested_gpu_compute_fraction REAL
);

CREATE TABLE site_recommendations (
  site_id TEXT NOT NULL,
  action_image TEXT NOT NULL,
  gpu_memory_gb REAL,
  gpu_compute_fraction REAL,
  cpu_millicores INTEGER,
  memory_bytes INTEGER,
  updated_at REAL NOT NULL,
  PRIMARY KEY (site_id, action_image)
);

CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  image TEXT NOT NULL UNIQUE
);

CREATE INDEX observations_by_workload ON observations (workload_id, finished_at);

CREATE INDEX site_observations_by_key ON site_observations (site_id, action_image, finished_at);

CREATE VIEW v_observations AS
SELECT o.execution_id,
       w.image AS workload,
       strftime('%Y-%m-%dT%H:%M:%SZ', o.finished_at, 'unixepoch') AS finished_at,
       o.status, o.site_id, o.node_pool_id,
       o.gpu_brand, o.gpu_model, o.instance_type, o.gpu_mode,
       o.gpu_compute_fraction, o.fraction_source, o.gpu_utilization, o.gpu_memory_peak_gb,
       o.cpu_millicores_p95, o.cpu_millicores_max, o.memory_peak_bytes,
       o.hp_v2, o.profile_id_mismatch
FROM observations o
JOIN workloads w ON w.id = o.workload_id;

CREATE VIEW v_recommendations AS
SELECT w.image AS workload,
       nullif(f.gpu_brand, '') AS gpu_brand,
       nullif(f.gpu_model, '') AS gpu_model,
       nullif(f.instance_type, '') AS instance_type,
       f.cpu_only,
       f.figure, f.value, f.provenance, f.samples, round(f.confidence, 3) AS confidence,
       f.lower, f.upper,
       strftime('%Y-%m-%dT%H:%M:%SZ', f.as_of, 'unixepoch') AS as_of
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
