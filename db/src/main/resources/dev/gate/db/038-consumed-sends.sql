--liquibase formatted sql

--changeset gate:038-consumed-sends
--comment: a consume without the caller's key writes no call row: its sends are its only record, so they carry who sent it (program, owner) and its class; every other send leaves them null (its call row holds them). Its id is drawn from gate_call's identity, so a call id names one call whichever table holds it, and reading a call by its id falls back to this partial index (only such sends are in it).
ALTER TABLE gate_send ADD COLUMN program varchar(64), ADD COLUMN owner varchar(128), ADD COLUMN call_class smallint;
CREATE INDEX gate_send_consumed ON gate_send (call_id) WHERE owner IS NOT NULL;
--rollback DROP INDEX gate_send_consumed; ALTER TABLE gate_send DROP COLUMN program, DROP COLUMN owner, DROP COLUMN call_class;
