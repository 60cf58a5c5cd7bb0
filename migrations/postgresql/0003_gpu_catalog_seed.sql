-- PostgreSQL dialect of migrations/0003_gpu_catalog_seed.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID).
-- The same seed rows; the fractions are computed in NUMERIC and stored as
-- the same DOUBLE PRECISION values SQLite computes.
--
-- The GPU catalog as hwrec ships it: every card, the whole card as partition
-- `full`, and its MIG profiles. compute_fraction = profile slices / card slices.
-- Operators add cards with `hwrec catalog import`.

INSERT INTO gpu_models (brand, model, memory_gb, compute_slices) VALUES
  ('NVIDIA', 'A100 40GB', 40, 7),
  ('NVIDIA', 'A100 80GB', 80, 7),
  ('NVIDIA', 'H100 80GB', 80, 7),
  ('NVIDIA', 'H100 94GB', 94, 7),
  ('NVIDIA', 'H200 141GB', 141, 7),
  ('NVIDIA', 'A30', 24, 4),
  ('NVIDIA', 'L4', 24, 1),
  ('NVIDIA', 'L40S', 48, 1),
  ('NVIDIA', 'T4', 16, 1),
  ('NVIDIA', 'A10', 24, 1),
  ('NVIDIA', 'A10G', 24, 1),
  ('NVIDIA', 'V100 16GB', 16, 1),
  ('NVIDIA', 'V100 32GB', 32, 1),
  ('NVIDIA', 'P100 16GB', 16, 1);

INSERT INTO gpu_partitions
  (gpu_config_id, brand, model, mode, memory_gb, compute_slices, compute_fraction)
VALUES
  ('nvidia-a100-40gb-full', 'NVIDIA', 'A100 40GB', 'full', 40, 7, 1.0),
  ('nvidia-a100-40gb-mig-1g.5gb', 'NVIDIA', 'A100 40GB', 'mig-1g.5gb', 5, 1, 1.0 / 7),
  ('nvidia-a100-40gb-mig-1g.10gb', 'NVIDIA', 'A100 40GB', 'mig-1g.10gb', 10, 1, 1.0 / 7),
  ('nvidia-a100-40gb-mig-2g.10gb', 'NVIDIA', 'A100 40GB', 'mig-2g.10gb', 10, 2, 2.0 / 7),
  ('nvidia-a100-40gb-mig-3g.20gb', 'NVIDIA', 'A100 40GB', 'mig-3g.20gb', 20, 3, 3.0 / 7),
  ('nvidia-a100-40gb-mig-4g.20gb', 'NVIDIA', 'A100 40GB', 'mig-4g.20gb', 20, 4, 4.0 / 7),
  ('nvidia-a100-40gb-mig-7g.40gb', 'NVIDIA', 'A100 40GB', 'mig-7g.40gb', 40, 7, 7.0 / 7),
  ('nvidia-a100-80gb-full', 'NVIDIA', 'A100 80GB', 'full', 80, 7, 1.0),
  ('nvidia-a100-80gb-mig-1g.10gb', 'NVIDIA', 'A100 80GB', 'mig-1g.10gb', 10, 1, 1.0 / 7),
  ('nvidia-a100-80gb-mig-1g.20gb', 'NVIDIA', 'A100 80GB', 'mig-1g.20gb', 20, 1, 1.0 / 7),
  ('nvidia-a100-80gb-mig-2g.20gb', 'NVIDIA', 'A100 80GB', 'mig-2g.20gb', 20, 2, 2.0 / 7),
  ('nvidia-a100-80gb-mig-3g.40gb', 'NVIDIA', 'A100 80GB', 'mig-3g.40gb', 40, 3, 3.0 / 7),
  ('nvidia-a100-80gb-mig-4g.40gb', 'NVIDIA', 'A100 80GB', 'mig-4g.40gb', 40, 4, 4.0 / 7),
  ('nvidia-a100-80gb-mig-7g.80gb', 'NVIDIA', 'A100 80GB', 'mig-7g.80gb', 80, 7, 7.0 / 7),
  ('nvidia-h100-80gb-full', 'NVIDIA', 'H100 80GB', 'full', 80, 7, 1.0),
  ('nvidia-h100-80gb-mig-1g.10gb', 'NVIDIA', 'H100 80GB', 'mig-1g.10gb', 10, 1, 1.0 / 7),
  ('nvidia-h100-80gb-mig-1g.20gb', 'NVIDIA', 'H100 80GB', 'mig-1g.20gb', 20, 1, 1.0 / 7),
  ('nvidia-h100-80gb-mig-2g.20gb', 'NVIDIA', 'H100 80GB', 'mig-2g.20gb', 20, 2, 2.0 / 7),
  ('nvidia-h100-80gb-mig-3g.40gb', 'NVIDIA', 'H100 80GB', 'mig-3g.40gb', 40, 3, 3.0 / 7),
  ('nvidia-h100-80gb-mig-4g.40gb', 'NVIDIA', 'H100 80GB', 'mig-4g.40gb', 40, 4, 4.0 / 7),
  ('nvidia-h100-80gb-mig-7g.80gb', 'NVIDIA', 'H100 80GB', 'mig-7g.80gb', 80, 7, 7.0 / 7),
  ('nvidia-h100-94gb-full', 'NVIDIA', 'H100 94GB', 'full', 94, 7, 1.0),
  ('nvidia-h100-94gb-mig-1g.12gb', 'NVIDIA', 'H100 94GB', 'mig-1g.12gb', 12, 1, 1.0 / 7),
  ('nvidia-h100-94gb-mig-1g.24gb', 'NVIDIA', 'H100 94GB', 'mig-1g.24gb', 24, 1, 1.0 / 7),
  ('nvidia-h100-94gb-mig-2g.24gb', 'NVIDIA', 'H100 94GB', 'mig-2g.24gb', 24, 2, 2.0 / 7),
  ('nvidia-h100-94gb-mig-3g.47gb', 'NVIDIA', 'H100 94GB', 'mig-3g.47gb', 47, 3, 3.0 / 7),
  ('nvidia-h100-94gb-mig-4g.47gb', 'NVIDIA', 'H100 94GB', 'mig-4g.47gb', 47, 4, 4.0 / 7),
  ('nvidia-h100-94gb-mig-7g.94gb', 'NVIDIA', 'H100 94GB', 'mig-7g.94gb', 94, 7, 7.0 / 7),
  ('nvidia-h200-141gb-full', 'NVIDIA', 'H200 141GB', 'full', 141, 7, 1.0),
  ('nvidia-h200-141gb-mig-1g.18gb', 'NVIDIA', 'H200 141GB', 'mig-1g.18gb', 18, 1, 1.0 / 7),
  ('nvidia-h200-141gb-mig-1g.35gb', 'NVIDIA', 'H200 141GB', 'mig-1g.35gb', 35, 1, 1.0 / 7),
  ('nvidia-h200-141gb-mig-2g.35gb', 'NVIDIA', 'H200 141GB', 'mig-2g.35gb', 35, 2, 2.0 / 7),
  ('nvidia-h200-141gb-mig-3g.71gb', 'NVIDIA', 'H200 141GB', 'mig-3g.71gb', 71, 3, 3.0 / 7),
  ('nvidia-h200-141gb-mig-4g.71gb', 'NVIDIA', 'H200 141GB', 'mig-4g.71gb', 71, 4, 4.0 / 7),
  ('nvidia-h200-141gb-mig-7g.141gb', 'NVIDIA', 'H200 141GB', 'mig-7g.141gb', 141, 7, 7.0 / 7),
  ('nvidia-a30-full', 'NVIDIA', 'A30', 'full', 24, 4, 1.0),
  ('nvidia-a30-mig-1g.6gb', 'NVIDIA', 'A30', 'mig-1g.6gb', 6, 1, 1.0 / 4),
  ('nvidia-a30-mig-2g.12gb', 'NVIDIA', 'A30', 'mig-2g.12gb', 12, 2, 2.0 / 4),
  ('nvidia-a30-mig-4g.24gb', 'NVIDIA', 'A30', 'mig-4g.24gb', 24, 4, 4.0 / 4),
  ('nvidia-l4-full', 'NVIDIA', 'L4', 'full', 24, 1, 1.0),
  ('nvidia-l40s-full', 'NVIDIA', 'L40S', 'full', 48, 1, 1.0),
  ('nvidia-t4-full', 'NVIDIA', 'T4', 'full', 16, 1, 1.0),
  ('nvidia-a10-full', 'NVIDIA', 'A10', 'full', 24, 1, 1.0),
  ('nvidia-a10g-full', 'NVIDIA', 'A10G', 'full', 24, 1, 1.0),
  ('nvidia-v100-16gb-full', 'NVIDIA', 'V100 16GB', 'full', 16, 1, 1.0),
  ('nvidia-v100-32gb-full', 'NVIDIA', 'V100 32GB', 'full', 32, 1, 1.0),
  ('nvidia-p100-16gb-full', 'NVIDIA', 'P100 16GB', 'full', 16, 1, 1.0);
