-- The scheduler's fire journal. A tick commits its decisions here, one row per
-- slice and kind, instead of one run row per fire: that commit is the point of no
-- return. `decisions` is compact JSON,
--   [[target_id, [scheduled slot ms, ...], next_fire_at_ms, missed_reason_or_null], ...]
-- A materializer turns a row into run records (and the targets' persisted fire
-- times) and deletes it in the same transaction; rows left by a crash or a stop
-- are materialized at the next start, before the scheduler loads its heap.
CREATE TABLE automations_fire_journal (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,                        -- routine | v2
    fired_at_ms INTEGER NOT NULL,
    decisions TEXT NOT NULL
);
