-- Schema 1: the legacy layout. History is keyed by (site_id, action_image) and
-- carries hp:v1 hardware profile ids, which do not name the GPU model. Kept so
-- that stores written by the site-keyed Runner can be opened and migrated.
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

-- The node pools the site-keyed Runner knew, with the GPU name it recorded
-- (free text: not necessarily the catalog's spelling, NULL when not recorded).
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

CREATE INDEX site_observations_by_key ON site_observations (site_id, action_image, finished_at);

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
