--liquibase formatted sql

--changeset gate:012-submission-key
--comment: a program names each submission; its retry after a lost answer finds the call it made and never makes a second.
ALTER TABLE gate_call ADD COLUMN submission_key varchar(200);
-- one call per program and key, whatever its state, for as long as the call is kept
CREATE UNIQUE INDEX gate_call_submission ON gate_call (owner, submission_key) WHERE submission_key IS NOT NULL;
--rollback DROP INDEX gate_call_submission; ALTER TABLE gate_call DROP COLUMN submission_key;
