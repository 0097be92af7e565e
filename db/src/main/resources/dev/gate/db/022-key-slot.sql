--liquibase formatted sql

--changeset gate:022-key-slot splitStatements:false
--comment: a new key's slot starts a day in the past: its first call is the longest due of its parent's lines (the slot loop serves the longest due first), so a busy key under the same parent never goes ahead of it. A beat that slipped more than a gap restarts from the actual send, so this allows no burst.
CREATE OR REPLACE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO gate_slot (limit_name, next_slot_at)
    VALUES (NEW.name, CASE WHEN NEW.template_name IS NULL THEN clock_timestamp()
                           ELSE clock_timestamp() - interval '1 day' END)
    ON CONFLICT DO NOTHING;
    RETURN NEW;
END;
$$;
--rollback CREATE OR REPLACE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO gate_slot (limit_name) VALUES (NEW.name) ON CONFLICT DO NOTHING; RETURN NEW; END; $$;
