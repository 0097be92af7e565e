--liquibase formatted sql

--changeset gate:010-slowed-at
--comment: when the vendor last said "slow down" (a 429, or a 503 with Retry-After) for the limit: the status page says what started a cool-down
ALTER TABLE gate_slot ADD COLUMN slowed_at timestamptz;
ALTER TABLE gate_slot ADD COLUMN slowed_by smallint;
--rollback ALTER TABLE gate_slot DROP COLUMN slowed_by; ALTER TABLE gate_slot DROP COLUMN slowed_at;
