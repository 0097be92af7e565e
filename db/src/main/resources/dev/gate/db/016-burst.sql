--liquibase formatted sql

--changeset gate:016-burst
--comment: a limit's burst allowance: up to burst sends back to back after idle time (the allowance refills by one per gap), never over any rule's window cap; 1: no burst
ALTER TABLE gate_limit ADD COLUMN burst integer NOT NULL DEFAULT 1
    CONSTRAINT gate_limit_burst CHECK (burst >= 1 AND burst <= calls);
--rollback ALTER TABLE gate_limit DROP COLUMN burst;
