--liquibase formatted sql

--changeset gate:034-joiner-key
--comment: a dedupe joiner's submission key: its retry after a lost answer finds the call it joined, whatever became of it, and never makes a new call (kept while the call is kept, as a call's own key is).
ALTER TABLE gate_call_joiner ADD COLUMN owner varchar(128), ADD COLUMN submission_key varchar(200);
CREATE UNIQUE INDEX gate_call_joiner_submission ON gate_call_joiner (owner, submission_key)
    WHERE submission_key IS NOT NULL;
--rollback DROP INDEX gate_call_joiner_submission; ALTER TABLE gate_call_joiner DROP COLUMN owner, DROP COLUMN submission_key;
