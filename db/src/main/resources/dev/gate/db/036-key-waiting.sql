--liquibase formatted sql

--changeset gate:036-key-waiting
--comment: the waiting calls of a concurrency key, for the estimate: a call whose key another call holds granted is passed over by the grant pass, so it is not counted ahead of a later call (Estimates). Only calls with a key are in it.
CREATE INDEX gate_call_key_waiting ON gate_call (limit_name, concurrency_key)
    WHERE state = 'WAITING' AND concurrency_key IS NOT NULL;
--rollback DROP INDEX gate_call_key_waiting;
