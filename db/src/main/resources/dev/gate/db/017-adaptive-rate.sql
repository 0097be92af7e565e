--liquibase formatted sql

--changeset gate:017-adaptive-rate
--comment: the adaptive rate (per limit, off by default): each rate-limit signal cuts the calls per window to 90% (once a window at most), each ten windows without one raise them by 2% of the declared calls; gate_slot keeps the last cut (null: never cut, the declared rate)
ALTER TABLE gate_limit ADD COLUMN adaptive boolean NOT NULL DEFAULT false;
ALTER TABLE gate_slot ADD COLUMN adaptive_calls integer CONSTRAINT gate_slot_adaptive_calls CHECK (adaptive_calls >= 1);
ALTER TABLE gate_slot ADD COLUMN adaptive_cut_at timestamptz;
--rollback ALTER TABLE gate_slot DROP COLUMN adaptive_cut_at;
--rollback ALTER TABLE gate_slot DROP COLUMN adaptive_calls;
--rollback ALTER TABLE gate_limit DROP COLUMN adaptive;
