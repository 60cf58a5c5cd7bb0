-- PostgreSQL dialect of migrations/0013_change_counters.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID). One
-- statement-level trigger per table raises its area's counter once per
-- statement that changed it.
--
-- Schema 13: what a long-lived reader holds is re-read only when it changed.
-- A placement evaluator or a recommendation reader kept by a Runner holds the
-- registered node pools, the GPU catalog and the settings; store_changes
-- keeps one counter per area, raised by triggers on the area's tables in the
-- writer's own transaction, whichever replica or tool wrote them (an
-- operator's psql session too). A reader compares the counters in the
-- snapshot of its answer and re-reads only the areas that moved.
--
-- Aggregates are also rebuilt by this migration (in its transaction, by
-- hwrec itself): the GPU compute share an execution held without reporting
-- its utilisation is now kept apart from the share executions used. A
-- materialised compute share learned from shares held, because no execution
-- behind it reported its utilisation, says so (gpu_compute_fraction_held = 1).
ALTER TABLE recommendations ADD COLUMN gpu_compute_fraction_held BIGINT NOT NULL DEFAULT 0
  CHECK (gpu_compute_fraction_held = 0 OR gpu_compute_fraction_held = 1);

CREATE TABLE store_changes (
  area TEXT PRIMARY KEY CHECK (area = 'pools' OR area = 'catalog' OR area = 'settings'),
  counter BIGINT NOT NULL
);

INSERT INTO store_changes (area, counter) VALUES ('pools', 0), ('catalog', 0), ('settings', 0);

-- The counters of the schema the changed table is in, whatever the writer's
-- search_path (an operator's psql session may name the table qualified).
CREATE FUNCTION hwrec_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE %I.store_changes SET counter = counter + 1 WHERE area = $1',
                 TG_TABLE_SCHEMA) USING TG_ARGV[0];
  RETURN NULL;
END
$$;

CREATE TRIGGER node_pools_changed AFTER INSERT OR UPDATE OR DELETE ON node_pools
FOR EACH STATEMENT EXECUTE FUNCTION hwrec_count_change('pools');
CREATE TRIGGER gpu_models_changed AFTER INSERT OR UPDATE OR DELETE ON gpu_models
FOR EACH STATEMENT EXECUTE FUNCTION hwrec_count_change('catalog');
CREATE TRIGGER gpu_partitions_changed AFTER INSERT OR UPDATE OR DELETE ON gpu_partitions
FOR EACH STATEMENT EXECUTE FUNCTION hwrec_count_change('catalog');
CREATE TRIGGER config_changed AFTER INSERT OR UPDATE OR DELETE ON config
FOR EACH STATEMENT EXECUTE FUNCTION hwrec_count_change('settings');
