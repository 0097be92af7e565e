--liquibase formatted sql

--changeset gate:009-operator-actions
--comment: what operators did to the line (pause, resume, cancel, drain, limit changes) and who did it, newest first on the status page
CREATE TABLE gate_action (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      timestamptz  NOT NULL DEFAULT clock_timestamp(),
    actor   varchar(200) NOT NULL,
    action  varchar(40)  NOT NULL,
    target  varchar(300) NOT NULL,
    detail  varchar(1000)
);
CREATE INDEX gate_action_at ON gate_action (at DESC);
--rollback DROP TABLE gate_action;
