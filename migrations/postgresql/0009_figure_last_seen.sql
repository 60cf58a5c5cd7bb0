-- PostgreSQL dialect of migrations/0009_figure_last_seen.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID).
--
-- Schema 8: each figure's newest sample time (last_seen) in the materialised
-- recommendations and their view. Confidence now measures evidence (the
-- effective number of executions behind a figure) and no longer shrinks with
-- age, so last_seen is what tells how old a figure's history is. Aggregate
-- states are now hwrec format 2 (with the sum of squared decayed weights);
-- format 1 states still read. Rows materialised before this migration have no
-- last_seen until the next ingest of their workload or `hwrec refresh`.
ALTER TABLE recommendations ADD COLUMN cpu_request_millicores_last_seen DOUBLE PRECISION;
ALTER TABLE recommendations ADD COLUMN cpu_limit_millicores_last_seen DOUBLE PRECISION;
ALTER TABLE recommendations ADD COLUMN memory_bytes_last_seen DOUBLE PRECISION;
ALTER TABLE recommendations ADD COLUMN gpu_memory_gb_last_seen DOUBLE PRECISION;
ALTER TABLE recommendations ADD COLUMN gpu_compute_fraction_last_seen DOUBLE PRECISION;

DROP VIEW v_recommendations;

CREATE VIEW v_recommendations AS
SELECT w.image AS workload,
       nullif(f.gpu_brand, '') AS gpu_brand,
       nullif(f.gpu_model, '') AS gpu_model,
       nullif(f.instance_type, '') AS instance_type,
       f.cpu_only,
       f.figure, f.value, f.provenance, f.samples,
       CAST(round(CAST(f.confidence AS NUMERIC), 3) AS DOUBLE PRECISION) AS confidence,
       f.lower, f.upper,
       to_char(to_timestamp(f.last_seen) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_seen,
       to_char(to_timestamp(f.as_of) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS as_of
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
