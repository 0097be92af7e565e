--liquibase formatted sql

--changeset gate:003-account
--comment: the gate's own identity store for HTTP Basic: PBKDF2 hashes only, never a password.
CREATE TABLE gate_account (
    name          varchar(64)  PRIMARY KEY CONSTRAINT gate_account_name_format CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    password_hash varchar(512) NOT NULL CONSTRAINT gate_account_hashed CHECK (password_hash LIKE 'PBKDF2With%'),
    roles         varchar(200) NOT NULL,
    created_at    timestamptz  NOT NULL DEFAULT clock_timestamp(),
    updated_at    timestamptz  NOT NULL DEFAULT clock_timestamp()
);
--rollback DROP TABLE gate_account;

--changeset gate:003-outcome
--comment: how the vendor answered a granted call (the cool-down reads it later).
ALTER TABLE gate_call ADD COLUMN outcome_retry_after_s integer;
-- A program's calls have owner 'program:<name>': its heartbeat uses the index gate_call_owner like an instance's.
--rollback ALTER TABLE gate_call DROP COLUMN outcome_retry_after_s;
