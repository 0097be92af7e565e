--liquibase formatted sql

--changeset gate:037-removed-sends
--comment: a removed limit's sends that its windows still count: a limit (or a key) declared again under the same name takes them back as its first sends, so a removal and a re-declaration never send a window's calls twice. Kept until each leaves the removed limit's longest window and margin (keep_until), then pruned.
CREATE TABLE gate_removed_send (
    limit_name varchar(64) NOT NULL,
    sent_at    timestamptz NOT NULL,
    keep_until timestamptz NOT NULL
);
CREATE INDEX gate_removed_send_limit ON gate_removed_send (limit_name, sent_at);
CREATE INDEX gate_removed_send_until ON gate_removed_send (keep_until);
--rollback DROP TABLE gate_removed_send;

--changeset gate:037-removed-sends-slot splitStatements:false
--comment: a new limit's slot (a day in the past: its whole burst, 035), and the sends a removal kept under its name, numbered from 1 in send order, its window counting them.
CREATE OR REPLACE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    restored bigint;
BEGIN
    INSERT INTO gate_slot (limit_name, next_slot_at) VALUES (NEW.name, clock_timestamp() - interval '1 day')
    ON CONFLICT DO NOTHING;
    WITH back AS (DELETE FROM gate_removed_send WHERE limit_name = NEW.name RETURNING sent_at, keep_until),
         sent AS (INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                  SELECT NEW.name, 0, b.sent_at, b.sent_at, row_number() OVER (ORDER BY b.sent_at)
                  FROM back b WHERE b.keep_until > clock_timestamp()
                  RETURNING seq)
    SELECT coalesce(max(seq), 0) INTO restored FROM sent;
    IF restored > 0 THEN
        UPDATE gate_slot SET send_seq = restored WHERE limit_name = NEW.name;
    END IF;
    RETURN NEW;
END;
$$;
--rollback CREATE OR REPLACE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO gate_slot (limit_name, next_slot_at) VALUES (NEW.name, clock_timestamp() - interval '1 day') ON CONFLICT DO NOTHING; RETURN NEW; END; $$;
