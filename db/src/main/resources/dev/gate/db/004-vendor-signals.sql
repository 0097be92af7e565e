--liquibase formatted sql

--changeset gate:004-limit-options
--comment: a limit's options: minimum spacing, the cool-down after rate-limit signals (floor, ladder, step-down run).
ALTER TABLE gate_limit ADD COLUMN min_interval_ms bigint NOT NULL DEFAULT 0
    CONSTRAINT gate_limit_min_interval CHECK (min_interval_ms >= 0);
ALTER TABLE gate_limit ADD COLUMN retry_floor_ms bigint NOT NULL DEFAULT 2000
    CONSTRAINT gate_limit_retry_floor CHECK (retry_floor_ms > 0);
ALTER TABLE gate_limit ADD COLUMN cooldown_ladder_ms bigint[] NOT NULL DEFAULT '{2000,5000,15000,30000,60000}'
    CONSTRAINT gate_limit_ladder CHECK (cardinality(cooldown_ladder_ms) BETWEEN 1 AND 20);
ALTER TABLE gate_limit ADD COLUMN step_down_after integer NOT NULL DEFAULT 10
    CONSTRAINT gate_limit_step_down CHECK (step_down_after > 0);
--rollback ALTER TABLE gate_limit DROP COLUMN min_interval_ms, DROP COLUMN retry_floor_ms, DROP COLUMN cooldown_ladder_ms, DROP COLUMN step_down_after;

--changeset gate:004-slot-cooldown
--comment: the source-wide cool-down lives with the slot: no grant of any class before paused_until.
ALTER TABLE gate_slot ADD COLUMN paused_until timestamptz;
ALTER TABLE gate_slot ADD COLUMN cooldown_step integer NOT NULL DEFAULT 0;
ALTER TABLE gate_slot ADD COLUMN success_run integer NOT NULL DEFAULT 0;
--rollback ALTER TABLE gate_slot DROP COLUMN paused_until, DROP COLUMN cooldown_step, DROP COLUMN success_run;

--changeset gate:004-limit-rule
--comment: more rules of one vendor beside the limit's own (10 per second and 600 per minute and 50,000 per day).
CREATE TABLE gate_limit_rule (
    limit_name varchar(64) NOT NULL REFERENCES gate_limit (name) ON DELETE CASCADE,
    calls      integer     NOT NULL CONSTRAINT gate_limit_rule_calls CHECK (calls > 0),
    window_ms  bigint      NOT NULL CONSTRAINT gate_limit_rule_window CHECK (window_ms > 0),
    PRIMARY KEY (limit_name, window_ms)
);
--rollback DROP TABLE gate_limit_rule;
