--liquibase formatted sql

--changeset gate:035-fresh-slot-burst splitStatements:false
--comment: a new limit's slot starts a day in the past, as a new key's does (022): a fresh limit starts with its whole burst, as a fresh token bucket starts full (every rule's window still counts every send). Its first send restarts the beat from itself (Beat.restartAfter), so with no burst this lets nothing more go.
CREATE OR REPLACE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO gate_slot (limit_name, next_slot_at) VALUES (NEW.name, clock_timestamp() - interval '1 day')
    ON CONFLICT DO NOTHING;
    RETURN NEW;
END;
$$;
--rollback CREATE OR REPLACE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO gate_slot (limit_name, next_slot_at) VALUES (NEW.name, CASE WHEN NEW.template_name IS NULL THEN clock_timestamp() ELSE clock_timestamp() - interval '1 day' END) ON CONFLICT DO NOTHING; RETURN NEW; END; $$;
