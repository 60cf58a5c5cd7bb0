-- PostgreSQL dialect of migrations/0008_idempotent_records.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID).
--
-- Schema 8: recording twice adds nothing. One placement per execution (a
-- re-record with another decision replaces it), one reject per record text
-- and field, and one conflict per re-sent record text (re-ingesting a file
-- does not store its rejects or conflicts again). Duplicates written before
-- this schema are removed first, keeping the latest of each.

DELETE FROM placements
WHERE id NOT IN (
  SELECT id FROM (
    SELECT id, row_number() OVER (
      PARTITION BY execution_id ORDER BY placed_at DESC, id DESC) AS newest
    FROM placements) AS ranked
  WHERE newest = 1);

DROP INDEX placements_by_execution;
CREATE UNIQUE INDEX placements_by_execution ON placements (execution_id);

DELETE FROM ingest_rejects
WHERE id NOT IN (SELECT max(id) FROM ingest_rejects GROUP BY record, field);

-- A record may be 1 MiB and a b-tree entry holds 2704 bytes: the record is
-- unique by its md5 here (SQLite indexes the text itself).
CREATE UNIQUE INDEX ingest_rejects_by_record ON ingest_rejects (md5(record), field);

DELETE FROM ingest_conflicts
WHERE id NOT IN (SELECT max(id) FROM ingest_conflicts GROUP BY execution_id, record);

CREATE UNIQUE INDEX ingest_conflicts_by_record ON ingest_conflicts (execution_id, md5(record));
