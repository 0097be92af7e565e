--liquibase formatted sql

--changeset gate:006-dedupe
--comment: fetch once: while a call with a limit's dedupe key waits or is granted, a new submission joins it.
ALTER TABLE gate_call ADD COLUMN dedupe_key varchar(200);
-- at most one live call per limit and key, even under concurrent submissions
CREATE UNIQUE INDEX gate_call_dedupe ON gate_call (limit_name, dedupe_key)
    WHERE dedupe_key IS NOT NULL AND state IN ('WAITING', 'GRANTED');
-- the programs that joined a call: they may see it, and its outcome
CREATE TABLE gate_call_joiner (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    call_id   bigint      NOT NULL REFERENCES gate_call (id) ON DELETE CASCADE,
    program   varchar(64) NOT NULL,
    joined_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX gate_call_joiner_call ON gate_call_joiner (call_id, program);
-- sends saved by joining, per limit, for operators
ALTER TABLE gate_slot ADD COLUMN saved_sends bigint NOT NULL DEFAULT 0;
--rollback ALTER TABLE gate_slot DROP COLUMN saved_sends; DROP TABLE gate_call_joiner; DROP INDEX gate_call_dedupe; ALTER TABLE gate_call DROP COLUMN dedupe_key;
