--liquibase formatted sql

--changeset gate:028-who-paused
--comment: a program's reported Retry-After is taken up to the limit's max_cooldown_ms (default 1 h; an operator may set more), and a cool-down records the program and the call whose outcome started it (the status page, /actions).
ALTER TABLE gate_limit ADD COLUMN max_cooldown_ms bigint NOT NULL DEFAULT 3600000
    CONSTRAINT gate_limit_max_cooldown CHECK (max_cooldown_ms > 0);
ALTER TABLE gate_slot ADD COLUMN slowed_program varchar(64);
ALTER TABLE gate_slot ADD COLUMN slowed_call bigint;
--rollback ALTER TABLE gate_slot DROP COLUMN slowed_call, DROP COLUMN slowed_program; ALTER TABLE gate_limit DROP COLUMN max_cooldown_ms;
