--liquibase formatted sql

--changeset gate:018-keyed-limits
--comment: keyed limits. A template (keyed) takes only calls that name a key; each key gets a limit row of its own (template_name set, named template~key), a copy of the template's rules with its own line, beat and send log, created on first use and removed when idle. key_used_at: the key's latest join, on the database clock.
ALTER TABLE gate_limit ADD COLUMN keyed boolean NOT NULL DEFAULT false;
ALTER TABLE gate_limit ADD COLUMN template_name varchar(64) REFERENCES gate_limit (name) ON DELETE CASCADE;
ALTER TABLE gate_limit ADD COLUMN limit_key varchar(200);
ALTER TABLE gate_limit ADD COLUMN key_used_at timestamptz;
ALTER TABLE gate_limit DROP CONSTRAINT gate_limit_name_format;
ALTER TABLE gate_limit ADD CONSTRAINT gate_limit_name_format CHECK (
    CASE WHEN template_name IS NULL THEN name ~ '^[A-Za-z0-9._-]{1,64}$'
         ELSE name LIKE template_name || '~%' AND limit_key IS NOT NULL AND key_used_at IS NOT NULL AND NOT keyed END);
-- A key's row is found by its name; this index serves the idle sweep (oldest use first) and the per-template count.
CREATE INDEX gate_limit_keys ON gate_limit (template_name, key_used_at) WHERE template_name IS NOT NULL;
--rollback DROP INDEX gate_limit_keys;
--rollback DELETE FROM gate_limit WHERE template_name IS NOT NULL;
--rollback ALTER TABLE gate_limit DROP CONSTRAINT gate_limit_name_format;
--rollback ALTER TABLE gate_limit ADD CONSTRAINT gate_limit_name_format CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$');
--rollback ALTER TABLE gate_limit DROP COLUMN key_used_at, DROP COLUMN limit_key, DROP COLUMN template_name, DROP COLUMN keyed;
