--liquibase formatted sql

--changeset gate:007-abandoned
--comment: a granted call whose lease runs out without an outcome ends as ABANDONED: its dedupe and concurrency keys are free again.
ALTER TABLE gate_call DROP CONSTRAINT gate_call_state;
ALTER TABLE gate_call ADD CONSTRAINT gate_call_state
    CHECK (state IN ('WAITING', 'GRANTED', 'DONE', 'CANCELLED', 'EXPIRED', 'ABANDONED'));
-- Ending granted calls whose lease ran out looks only at granted rows, oldest lease first.
CREATE INDEX gate_call_granted_lease ON gate_call (lease_expires_at) WHERE state = 'GRANTED';
-- Retention and limit removal walk one limit's finished calls, oldest first.
CREATE INDEX gate_call_finished ON gate_call (limit_name, done_at) WHERE state NOT IN ('WAITING', 'GRANTED');
--rollback DROP INDEX gate_call_finished; DROP INDEX gate_call_granted_lease; ALTER TABLE gate_call DROP CONSTRAINT gate_call_state; ALTER TABLE gate_call ADD CONSTRAINT gate_call_state CHECK (state IN ('WAITING', 'GRANTED', 'DONE', 'CANCELLED', 'EXPIRED'));

--changeset gate:007-send-seq
--comment: each limit numbers its sends (1, 2, 3 ...) under its slot lock, so "the n-th most recent send" is a point lookup, not an OFFSET walk.
ALTER TABLE gate_slot ADD COLUMN send_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE gate_send ADD COLUMN seq bigint;
UPDATE gate_send s SET seq = n.seq
FROM (SELECT id, row_number() OVER (PARTITION BY limit_name ORDER BY sent_at, id) AS seq FROM gate_send) n
WHERE n.id = s.id;
UPDATE gate_slot t SET send_seq = coalesce((SELECT max(seq) FROM gate_send s WHERE s.limit_name = t.limit_name), 0);
ALTER TABLE gate_send ALTER COLUMN seq SET NOT NULL;
CREATE UNIQUE INDEX gate_send_seq ON gate_send (limit_name, seq);
--rollback DROP INDEX gate_send_seq; ALTER TABLE gate_send DROP COLUMN seq; ALTER TABLE gate_slot DROP COLUMN send_seq;

--changeset gate:007-saved
--comment: sends saved by dedupe joiners live in their own row, so a joiner never takes the slot row's lock (one lock order: slot row, then call rows).
CREATE TABLE gate_saved (
    limit_name  varchar(64) PRIMARY KEY REFERENCES gate_limit (name) ON DELETE CASCADE,
    saved_sends bigint      NOT NULL DEFAULT 0
);
INSERT INTO gate_saved (limit_name, saved_sends) SELECT limit_name, saved_sends FROM gate_slot WHERE saved_sends > 0;
ALTER TABLE gate_slot DROP COLUMN saved_sends;
--rollback ALTER TABLE gate_slot ADD COLUMN saved_sends bigint NOT NULL DEFAULT 0; UPDATE gate_slot s SET saved_sends = v.saved_sends FROM gate_saved v WHERE v.limit_name = s.limit_name; DROP TABLE gate_saved;
