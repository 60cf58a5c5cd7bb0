-- Schema 2: history keyed by hardware. The GPU catalog, registered node pools,
-- workloads, observations with hp:v1 and hp:v2 ids, and what ingest refused.
-- CHECKs spell allowed values with OR: SQLite evaluates `IN (...)` on every
-- insert by building a temporary table, which costs more than the insert.

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

CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  image TEXT NOT NULL UNIQUE
);

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
);

CREATE INDEX observations_by_workload ON observations (workload_id, finished_at);

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

CREATE TABLE ingest_conflicts (
  id INTEGER PRIMARY KEY,
  execution_id TEXT NOT NULL,
  source TEXT NOT NULL,
  line INTEGER NOT NULL,
  record TEXT NOT NULL,              -- the re-sent record that was not stored
  seen_at REAL NOT NULL
);

CREATE TABLE config (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  description TEXT NOT NULL
) WITHOUT ROWID;

INSERT INTO config (key, value, description) VALUES
  ('total_compute_slices', '7',
   'compute slices assumed for a MIG mode whose card model is unknown');
