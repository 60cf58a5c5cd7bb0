-- Schema 5: what the explicit hp:v1 -> hp:v2 migration of legacy site-keyed
-- history leaves behind. Rows whose GPU model could not be resolved wait in
-- legacy_quarantine with every original field and the reason, until an operator
-- attaches a GPU model (`hwrec quarantine resolve`). Each migration run is
-- recorded with its counts, which add up: migrated + quarantined = legacy_rows.

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

CREATE INDEX legacy_quarantine_by_pool ON legacy_quarantine (site_id, node_pool_id);
CREATE INDEX legacy_quarantine_by_execution ON legacy_quarantine (execution_id);

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
