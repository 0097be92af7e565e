--liquibase formatted sql

--changeset gate:005-call-options
--comment: a call's own options: a deadline (never granted after it), and a key that only one call at a time may hold granted.
ALTER TABLE gate_call ADD COLUMN deadline_at timestamptz;
ALTER TABLE gate_call ADD COLUMN concurrency_key varchar(200);
-- "Is a call with this key granted and not yet done?" is asked for every candidate head with a key.
CREATE INDEX gate_call_key_granted ON gate_call (limit_name, concurrency_key)
    WHERE state = 'GRANTED' AND concurrency_key IS NOT NULL;
-- Clearing calls whose deadline passed looks only at waiting rows that have one.
CREATE INDEX gate_call_deadline ON gate_call (deadline_at) WHERE state = 'WAITING' AND deadline_at IS NOT NULL;
--rollback DROP INDEX gate_call_deadline; DROP INDEX gate_call_key_granted; ALTER TABLE gate_call DROP COLUMN concurrency_key, DROP COLUMN deadline_at;
