--liquibase formatted sql

--changeset gate:008-receipt-margin
--comment: the time a grant may take to reach its caller; the window cap counts each rule's window widened by it (null: the default, half a percent of the window, at most 100 ms)
ALTER TABLE gate_limit ADD COLUMN receipt_margin_ms bigint
    CONSTRAINT gate_limit_receipt_margin CHECK (receipt_margin_ms >= 0);
--rollback ALTER TABLE gate_limit DROP COLUMN receipt_margin_ms;
