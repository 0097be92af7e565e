--liquibase formatted sql

--changeset gate:011-starving-after
--comment: how long a class's oldest call may wait before the status page marks the class as starving (null: the server's default, 10 minutes)
ALTER TABLE gate_limit ADD COLUMN starving_after_ms bigint
    CONSTRAINT gate_limit_starving_after CHECK (starving_after_ms > 0);
--rollback ALTER TABLE gate_limit DROP COLUMN starving_after_ms;
