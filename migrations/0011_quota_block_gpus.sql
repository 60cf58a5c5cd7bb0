-- Schema 11: a quota block remembers how many GPUs the launch that found the
-- quota exhausted asked for (the fewest, when several did the same UTC day),
-- and skips only the rungs that need that many GPUs of the quota or more: a
-- narrower rung may still fit in what is left. Blocks recorded before keep
-- blocking every rung of their quota (1).
ALTER TABLE router_quota_blocks ADD COLUMN gpus INTEGER NOT NULL DEFAULT 1 CHECK (gpus >= 1);
