--liquibase formatted sql

--changeset gate:025-line-size
--comment: a line has a size. max_waiting: most calls waiting in one limit's line (each key's line, for a keyed limit); max_waiting_per_program: most of one program's (null: max_waiting); max_keys: most open keys of a keyed limit. A join past them is refused (line-full), counted in gate_line_full.
ALTER TABLE gate_limit ADD COLUMN max_waiting integer NOT NULL DEFAULT 10000
    CONSTRAINT gate_limit_max_waiting CHECK (max_waiting >= 1);
ALTER TABLE gate_limit ADD COLUMN max_waiting_per_program integer
    CONSTRAINT gate_limit_max_waiting_per_program CHECK (max_waiting_per_program >= 1);
ALTER TABLE gate_limit ADD COLUMN max_keys integer NOT NULL DEFAULT 100000
    CONSTRAINT gate_limit_max_keys CHECK (max_keys >= 1);
-- how often a limit's line (or its keys' lines, counted under the template) was full, and when last
CREATE TABLE gate_line_full (
    limit_name varchar(64) PRIMARY KEY REFERENCES gate_limit (name) ON DELETE CASCADE,
    refused    bigint      NOT NULL,
    last_at    timestamptz NOT NULL
);
-- a keyed limit's open keys, counted as they come and go (the cap is read on every new key, never by a scan)
CREATE TABLE gate_key_count (
    template_name varchar(64) PRIMARY KEY REFERENCES gate_limit (name) ON DELETE CASCADE,
    open_keys     bigint      NOT NULL
);
INSERT INTO gate_key_count (template_name, open_keys)
SELECT template_name, count(*) FROM gate_limit WHERE template_name IS NOT NULL GROUP BY template_name;
--rollback DROP TABLE gate_key_count; DROP TABLE gate_line_full;
--rollback ALTER TABLE gate_limit DROP COLUMN max_keys, DROP COLUMN max_waiting_per_program, DROP COLUMN max_waiting;

--changeset gate:025-key-count-trigger splitStatements:false
--comment: every key's row that comes or goes moves its template's count, whatever path adds or removes it (an open, the idle sweep, a template's removal).
CREATE FUNCTION gate_key_count_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO gate_key_count (template_name, open_keys) VALUES (NEW.template_name, 1)
        ON CONFLICT (template_name) DO UPDATE SET open_keys = gate_key_count.open_keys + 1;
        RETURN NEW;
    END IF;
    UPDATE gate_key_count SET open_keys = open_keys - 1 WHERE template_name = OLD.template_name;
    RETURN OLD;
END;
$$;
CREATE TRIGGER gate_key_count_in AFTER INSERT ON gate_limit FOR EACH ROW WHEN (NEW.template_name IS NOT NULL)
    EXECUTE FUNCTION gate_key_count_move();
CREATE TRIGGER gate_key_count_out AFTER DELETE ON gate_limit FOR EACH ROW WHEN (OLD.template_name IS NOT NULL)
    EXECUTE FUNCTION gate_key_count_move();
--rollback DROP TRIGGER gate_key_count_out ON gate_limit; DROP TRIGGER gate_key_count_in ON gate_limit; DROP FUNCTION gate_key_count_move();
