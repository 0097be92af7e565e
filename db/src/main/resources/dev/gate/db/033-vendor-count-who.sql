--liquibase formatted sql

--changeset gate:033-vendor-count-who
--comment: a vendor's count that holds the limit records the program and the call whose outcome reported it (the status page, /actions), as a cool-down does (028).
ALTER TABLE gate_slot ADD COLUMN vendor_program varchar(64), ADD COLUMN vendor_call bigint;
--rollback ALTER TABLE gate_slot DROP COLUMN vendor_program, DROP COLUMN vendor_call;
