--liquibase formatted sql

--changeset gate:029-call-cost
--comment: a call may cost more than one unit of the quota (a batch endpoint, a query priced in points); it logs one send row per unit, so every window count, the send numbers and the status page count units.
ALTER TABLE gate_call ADD COLUMN cost int NOT NULL DEFAULT 1 CONSTRAINT gate_call_cost CHECK (cost >= 1);
--rollback ALTER TABLE gate_call DROP COLUMN cost;

--changeset gate:029-call-cost-waiting
--comment: the grant pass asks whether a costlier call waits when its run of cost-1 calls stopped short; the index holds only those calls.
CREATE INDEX gate_call_costly_waiting ON gate_call (limit_name) WHERE state = 'WAITING' AND cost > 1;
--rollback DROP INDEX gate_call_costly_waiting;
