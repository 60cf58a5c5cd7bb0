-- PostgreSQL dialect of migrations/0014_gpus_held.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA;
-- no WITHOUT ROWID).
--
-- Schema 14: the GPUs an execution itself held. An observation records its
-- node's hardware (hardware.gpu_count is the node's); gpu_count_held is how
-- many of those GPUs the execution had (whole cards or partitions), NULL when
-- the record did not say: rows stored before this schema, and records that do
-- not send it, are of unknown width, never read as their node's count.
--
-- Aggregates gain a width: 0 is every execution of the key, whatever it
-- held, as before; N >= 1 (at the exact, gpu_model and any scopes) is the
-- executions that held N GPUs, for the GPU memory each GPU needed at that
-- width. The table is made anew and rebuilt from the observations by this
-- migration (in its transaction, by hwrec itself).
ALTER TABLE observations ADD COLUMN gpu_count_held BIGINT CHECK (gpu_count_held >= 0);

DROP TABLE aggregates;

CREATE TABLE aggregates (
  workload_id BIGINT NOT NULL REFERENCES workloads (id),
  scope TEXT NOT NULL
    CHECK (scope = 'exact' OR scope = 'gpu_model' OR scope = 'instance_type' OR scope = 'any'),
  gpu_brand TEXT NOT NULL,
  gpu_model TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  width BIGINT NOT NULL CHECK (width >= 0),  -- 0: every execution; N: those that held N GPUs
  samples BIGINT NOT NULL,
  last_finished_at DOUBLE PRECISION NOT NULL,
  state BYTEA NOT NULL,              -- decayed histograms and recent values, hwrec format 1
  PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, instance_type, width)
);
