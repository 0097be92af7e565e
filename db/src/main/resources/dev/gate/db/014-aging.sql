--liquibase formatted sql

--changeset gate:014-aging
--comment: the starvation guard (off when null): a call waiting longer than aging_after_ms is ranked as class aging_up_to (0 INTERACTIVE .. 4 BACKFILL) when that is higher than its own, keeping its arrival; calls it lifted are marked aged when granted
ALTER TABLE gate_limit ADD COLUMN aging_after_ms bigint
    CONSTRAINT gate_limit_aging_after CHECK (aging_after_ms > 0);
ALTER TABLE gate_limit ADD COLUMN aging_up_to smallint
    CONSTRAINT gate_limit_aging_up_to CHECK (aging_up_to BETWEEN 0 AND 3);
ALTER TABLE gate_limit ADD CONSTRAINT gate_limit_aging_both CHECK ((aging_after_ms IS NULL) = (aging_up_to IS NULL));
ALTER TABLE gate_call ADD COLUMN aged boolean NOT NULL DEFAULT false;
-- the status page counts the guard's grants of the last hour: few rows, so a small partial index
CREATE INDEX gate_call_aged ON gate_call (limit_name, granted_at) WHERE aged;
--rollback DROP INDEX gate_call_aged;
--rollback ALTER TABLE gate_call DROP COLUMN aged;
--rollback ALTER TABLE gate_limit DROP CONSTRAINT gate_limit_aging_both;
--rollback ALTER TABLE gate_limit DROP COLUMN aging_up_to;
--rollback ALTER TABLE gate_limit DROP COLUMN aging_after_ms;
