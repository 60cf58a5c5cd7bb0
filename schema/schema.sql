-- hwrec schema 14: generated from migrations/ by the `schema` build target.
-- Do not edit; change migrations/ and rebuild.

CREATE TABLE aggregates (
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  scope TEXT NOT NULL
    CHECK (scope = 'exact' OR scope = 'gpu_model' OR scope = 'instance_type' OR scope = 'any'),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  width INTEGER NOT NULL CHECK (width >= 0),  -- 0: every execution; N: those that held N GPUs
  samples INTEGER NOT NULL,
  last_finished_at REAL NOT NULL,
  state BLOB NOT NULL,               -- decayed histograms and recent values, hwrec format 1
  PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, instance_type, width)
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
  source TEXT NOT NULL DEFAULT 'seed' CHECK (source = 'seed' OR source = 'import'),
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

CREATE TABLE legacy_migrations (
  id INTEGER PRIMARY KEY,
  migrated_at REAL NOT NULL,
  from_version INTEGER NOT NULL,
  legacy_rows INTEGER NOT NULL,
  migrated INTEGER NOT NULL,
  quarantined INTEGER NOT NULL,
  backup_path TEXT,                  -- NULL when run with --no-backup
  CHECK (migrated + quarantined = legacy_rows)
);

CREATE TABLE legacy_quarantine (
  id INTEGER PRIMARY KEY,            -- what `hwrec quarantine resolve --id` names
  legacy_id INTEGER NOT NULL,        -- the row's id in site_observations
  execution_id TEXT NOT NULL,
  site_id TEXT NOT NULL,
  action_image TEXT NOT NULL,
  node_pool_id TEXT,
  finished_at REAL NOT NULL,
  status TEXT NOT NULL,
  duration_s REAL,
  hardware_profile_id TEXT,
  instance_type TEXT,
  architecture TEXT,
  cpu_millicores INTEGER,
  memory_bytes INTEGER,
  gpu_count INTEGER,
  gpu_mode TEXT,
  gpu_total INTEGER,
  node_pool_gpu TEXT,
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
  requested_gpu_compute_fraction REAL,
  reason_code TEXT NOT NULL,         -- e.g. gpu_name_not_in_catalog
  reason TEXT NOT NULL,              -- what is missing and how to resolve it
  quarantined_at REAL NOT NULL
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
    CHECK (status = 'success' OR status = 'oom' OR status = 'gpu_oom' OR status = 'failed'
           OR status = 'cancelled'),
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
  profile_id_mismatch INTEGER NOT NULL DEFAULT 0 CHECK (profile_id_mismatch = 0 OR profile_id_mismatch = 1),
  gpu_compute_fraction REAL,
  fraction_source TEXT NOT NULL
    CHECK (fraction_source = 'none' OR fraction_source = 'stamped' OR fraction_source = 'catalog'
           OR fraction_source = 'assumed'),
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
, gpu_count_held INTEGER CHECK (gpu_count_held >= 0));

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

CREATE TABLE recommendations (
  workload_id INTEGER NOT NULL REFERENCES workloads (id),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  cpu_only INTEGER NOT NULL CHECK (cpu_only = 0 OR cpu_only = 1),
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
  as_of REAL NOT NULL, cpu_request_millicores_last_seen REAL, cpu_limit_millicores_last_seen REAL, memory_bytes_last_seen REAL, gpu_memory_gb_last_seen REAL, gpu_compute_fraction_last_seen REAL, gpu_compute_fraction_held INTEGER NOT NULL DEFAULT 0
  CHECK (gpu_compute_fraction_held = 0 OR gpu_compute_fraction_held = 1),
  PRIMARY KEY (workload_id, gpu_brand, gpu_model, instance_type, cpu_only)
) WITHOUT ROWID;

CREATE TABLE router_gcp_attempts (
  day TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL CHECK (attempts >= 0)
) WITHOUT ROWID;

CREATE TABLE router_gcp_machines (
  machine_type TEXT PRIMARY KEY,
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  gpu_count INTEGER NOT NULL CHECK (gpu_count >= 1),
  vcpus INTEGER NOT NULL CHECK (vcpus >= 1),
  memory_gb REAL NOT NULL CHECK (memory_gb > 0),
  allows_spot INTEGER NOT NULL CHECK (allows_spot IN (0, 1)),
  allows_flex_start INTEGER NOT NULL CHECK (allows_flex_start IN (0, 1)),
  allows_standard INTEGER NOT NULL CHECK (allows_standard IN (0, 1)),
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
) WITHOUT ROWID;

CREATE TABLE router_intents (
  intent TEXT PRIMARY KEY,
  workload_image TEXT NOT NULL,
  legacy_machine TEXT NOT NULL REFERENCES router_gcp_machines (machine_type),
  min_width INTEGER NOT NULL CHECK (min_width >= 1)
) WITHOUT ROWID;

CREATE TABLE router_quota_blocks (
  day TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  class TEXT NOT NULL CHECK (class IN ('on_demand', 'preemptible')),
  reason TEXT NOT NULL,
  blocked_at REAL NOT NULL, gpus INTEGER NOT NULL DEFAULT 1 CHECK (gpus >= 1),
  PRIMARY KEY (day, gpu_model, class)
) WITHOUT ROWID;

CREATE TABLE router_quotas (
  gpu_model TEXT NOT NULL,
  class TEXT NOT NULL CHECK (class IN ('on_demand', 'preemptible')),
  metric TEXT NOT NULL,
  gpus INTEGER NOT NULL CHECK (gpus >= 0),
  PRIMARY KEY (gpu_model, class)
) WITHOUT ROWID;

CREATE TABLE router_runpod (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL,
  gpu_type TEXT NOT NULL,
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  max_gpus INTEGER NOT NULL CHECK (max_gpus >= 1),
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
);

CREATE TABLE router_slurm_lanes (
  lane TEXT PRIMARY KEY,
  position INTEGER NOT NULL UNIQUE,
  partition TEXT NOT NULL,
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  max_gpus INTEGER NOT NULL CHECK (max_gpus >= 1),
  FOREIGN KEY (gpu_brand, gpu_model) REFERENCES gpu_models (brand, model)
) WITHOUT ROWID;

CREATE TABLE schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at TEXT NOT NULL
);

CREATE TABLE site_node_pools (
  node_pool_id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  instance_type TEXT,
  architecture TEXT,
  cpu_millicores INTEGER,
  memory_bytes INTEGER,
  gpu_count INTEGER,
  gpu_mode TEXT,
  gpu_total INTEGER,
  gpu_name TEXT,
  hardware_profile_id TEXT           -- hp:v1:…
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

CREATE TABLE store_changes (
  area TEXT PRIMARY KEY CHECK (area = 'pools' OR area = 'catalog' OR area = 'settings'),
  counter INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  image TEXT NOT NULL UNIQUE
);

CREATE UNIQUE INDEX ingest_conflicts_by_record ON ingest_conflicts (execution_id, record);

CREATE UNIQUE INDEX ingest_rejects_by_record ON ingest_rejects (record, field);

CREATE INDEX legacy_quarantine_by_execution ON legacy_quarantine (execution_id);

CREATE INDEX legacy_quarantine_by_pool ON legacy_quarantine (site_id, node_pool_id);

CREATE INDEX observations_by_workload ON observations (workload_id, finished_at);

CREATE UNIQUE INDEX placements_by_execution ON placements (execution_id);

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

CREATE VIEW v_recommendations AS
SELECT w.image AS workload,
       nullif(f.gpu_brand, '') AS gpu_brand,
       nullif(f.gpu_model, '') AS gpu_model,
       nullif(f.instance_type, '') AS instance_type,
       f.cpu_only,
       f.figure, f.value, f.provenance, f.samples, round(f.confidence, 3) AS confidence,
       f.lower, f.upper,
       strftime('%Y-%m-%dT%H:%M:%SZ', f.last_seen, 'unixepoch') AS last_seen,
       strftime('%Y-%m-%dT%H:%M:%SZ', f.as_of, 'unixepoch') AS as_of
FROM (
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'cpu_request_millicores' AS figure,
         cpu_request_millicores AS value, cpu_request_millicores_provenance AS provenance, cpu_request_millicores_samples AS samples,
         cpu_request_millicores_confidence AS confidence, cpu_request_millicores_lower AS lower, cpu_request_millicores_upper AS upper,
         cpu_request_millicores_last_seen AS last_seen
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'cpu_limit_millicores' AS figure,
         cpu_limit_millicores AS value, cpu_limit_millicores_provenance AS provenance, cpu_limit_millicores_samples AS samples,
         cpu_limit_millicores_confidence AS confidence, cpu_limit_millicores_lower AS lower, cpu_limit_millicores_upper AS upper,
         cpu_limit_millicores_last_seen AS last_seen
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'memory_bytes' AS figure,
         memory_bytes AS value, memory_bytes_provenance AS provenance, memory_bytes_samples AS samples,
         memory_bytes_confidence AS confidence, memory_bytes_lower AS lower, memory_bytes_upper AS upper,
         memory_bytes_last_seen AS last_seen
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'gpu_memory_gb' AS figure,
         gpu_memory_gb AS value, gpu_memory_gb_provenance AS provenance, gpu_memory_gb_samples AS samples,
         gpu_memory_gb_confidence AS confidence, gpu_memory_gb_lower AS lower, gpu_memory_gb_upper AS upper,
         gpu_memory_gb_last_seen AS last_seen
  FROM recommendations
  UNION ALL
  SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of, 'gpu_compute_fraction' AS figure,
         gpu_compute_fraction AS value, gpu_compute_fraction_provenance AS provenance, gpu_compute_fraction_samples AS samples,
         gpu_compute_fraction_confidence AS confidence, gpu_compute_fraction_lower AS lower, gpu_compute_fraction_upper AS upper,
         gpu_compute_fraction_last_seen AS last_seen
  FROM recommendations
) AS f
JOIN workloads w ON w.id = f.workload_id;

CREATE TRIGGER config_deleted AFTER DELETE ON config
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'settings'; END;

CREATE TRIGGER config_inserted AFTER INSERT ON config
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'settings'; END;

CREATE TRIGGER config_updated AFTER UPDATE ON config
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'settings'; END;

CREATE TRIGGER gpu_models_deleted AFTER DELETE ON gpu_models
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER gpu_models_inserted AFTER INSERT ON gpu_models
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER gpu_models_updated AFTER UPDATE ON gpu_models
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER gpu_partitions_deleted AFTER DELETE ON gpu_partitions
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER gpu_partitions_inserted AFTER INSERT ON gpu_partitions
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER gpu_partitions_updated AFTER UPDATE ON gpu_partitions
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER node_pools_deleted AFTER DELETE ON node_pools
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'pools'; END;

CREATE TRIGGER node_pools_inserted AFTER INSERT ON node_pools
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'pools'; END;

CREATE TRIGGER node_pools_updated AFTER UPDATE ON node_pools
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'pools'; END;
