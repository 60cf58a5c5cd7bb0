-- PostgreSQL dialect of migrations/0010_settings_in_config.sql: the same schema with
-- PostgreSQL types (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, BLOB -> BYTEA,
-- INTEGER PRIMARY KEY ids -> identity columns; no WITHOUT ROWID).
--
-- Schema 10: one settings table. The router's settings move from
-- router_settings into config, beside the estimator's, as "router.<name>"
-- (the router reads and writes them by <name>, so `hwrec route config` shows
-- them as before); router_settings is dropped.
INSERT INTO config (key, value, description)
SELECT 'router.' || key, value, description FROM router_settings;

DROP TABLE router_settings;
