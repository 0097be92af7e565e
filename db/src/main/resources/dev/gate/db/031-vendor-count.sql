--liquibase formatted sql

--changeset gate:031-vendor-count
--comment: the vendor's own count, as an outcome reported it (X-RateLimit-Remaining / -Reset, RateLimit): vendor_remaining units left after the limit's send vendor_after_unit, until vendor_reset_at; the gate sends no more than that until then (VendorCount).
ALTER TABLE gate_slot ADD COLUMN vendor_after_unit bigint, ADD COLUMN vendor_remaining int,
    ADD COLUMN vendor_reset_at timestamptz, ADD COLUMN vendor_reported_at timestamptz,
    ADD CONSTRAINT gate_slot_vendor_count CHECK (vendor_remaining IS NULL OR vendor_remaining >= 0);
--rollback ALTER TABLE gate_slot DROP COLUMN vendor_after_unit, DROP COLUMN vendor_remaining, DROP COLUMN vendor_reset_at, DROP COLUMN vendor_reported_at;
