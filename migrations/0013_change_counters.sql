-- Schema 13: what a long-lived reader holds is re-read only when it changed.
-- A placement evaluator or a recommendation reader kept by a Runner holds the
-- registered node pools, the GPU catalog and the settings; store_changes
-- keeps one counter per area, raised by triggers on the area's tables in the
-- writer's own transaction, whichever process or tool wrote them (an
-- operator's sqlite3 session too). A reader compares the counters in the
-- snapshot of its answer and re-reads only the areas that moved.
--
-- Aggregates are also rebuilt by this migration (in its transaction, by
-- hwrec itself): the GPU compute share an execution held without reporting
-- its utilisation is now kept apart from the share executions used. A
-- materialised compute share learned from shares held, because no execution
-- behind it reported its utilisation, says so (gpu_compute_fraction_held = 1).
ALTER TABLE recommendations ADD COLUMN gpu_compute_fraction_held INTEGER NOT NULL DEFAULT 0
  CHECK (gpu_compute_fraction_held = 0 OR gpu_compute_fraction_held = 1);

CREATE TABLE store_changes (
  area TEXT PRIMARY KEY CHECK (area = 'pools' OR area = 'catalog' OR area = 'settings'),
  counter INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO store_changes (area, counter) VALUES ('pools', 0), ('catalog', 0), ('settings', 0);

CREATE TRIGGER node_pools_inserted AFTER INSERT ON node_pools
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'pools'; END;
CREATE TRIGGER node_pools_updated AFTER UPDATE ON node_pools
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'pools'; END;
CREATE TRIGGER node_pools_deleted AFTER DELETE ON node_pools
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'pools'; END;

CREATE TRIGGER gpu_models_inserted AFTER INSERT ON gpu_models
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;
CREATE TRIGGER gpu_models_updated AFTER UPDATE ON gpu_models
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;
CREATE TRIGGER gpu_models_deleted AFTER DELETE ON gpu_models
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER gpu_partitions_inserted AFTER INSERT ON gpu_partitions
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;
CREATE TRIGGER gpu_partitions_updated AFTER UPDATE ON gpu_partitions
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;
CREATE TRIGGER gpu_partitions_deleted AFTER DELETE ON gpu_partitions
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'catalog'; END;

CREATE TRIGGER config_inserted AFTER INSERT ON config
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'settings'; END;
CREATE TRIGGER config_updated AFTER UPDATE ON config
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'settings'; END;
CREATE TRIGGER config_deleted AFTER DELETE ON config
BEGIN UPDATE store_changes SET counter = counter + 1 WHERE area = 'settings'; END;
