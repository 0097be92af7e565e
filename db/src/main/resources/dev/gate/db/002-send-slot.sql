--liquibase formatted sql

--changeset gate:002-send-slot
--comment: the beat slot each send used; sent_at - slot_at is how late the send went against the beat.
ALTER TABLE gate_send ADD COLUMN slot_at timestamptz;
--rollback ALTER TABLE gate_send DROP COLUMN slot_at;
