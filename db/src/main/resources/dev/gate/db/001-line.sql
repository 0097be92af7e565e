--liquibase formatted sql

--changeset gate:001-limit
--comment: a limit is one vendor's rule: calls per window. Its hot slot state lives in gate_slot.
CREATE TABLE gate_limit (
    name       varchar(64) PRIMARY KEY CONSTRAINT gate_limit_name_format CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    calls      integer     NOT NULL CONSTRAINT gate_limit_calls_positive CHECK (calls > 0),
    window_ms  bigint      NOT NULL CONSTRAINT gate_limit_window_positive CHECK (window_ms > 0),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
--rollback DROP TABLE gate_limit;

--changeset gate:001-slot
--comment: one row per limit: the next time anyone may send. Its row lock is the limit's mutex for granting.
CREATE TABLE gate_slot (
    limit_name   varchar(64) PRIMARY KEY REFERENCES gate_limit (name) ON DELETE CASCADE,
    next_slot_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
--rollback DROP TABLE gate_slot;

--changeset gate:001-slot-trigger splitStatements:false
--comment: every limit has its slot row, also when an operator inserts the limit by hand.
CREATE FUNCTION gate_limit_add_slot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO gate_slot (limit_name) VALUES (NEW.name) ON CONFLICT DO NOTHING;
    RETURN NEW;
END;
$$;
CREATE TRIGGER gate_limit_add_slot AFTER INSERT ON gate_limit FOR EACH ROW EXECUTE FUNCTION gate_limit_add_slot();
--rollback DROP TRIGGER gate_limit_add_slot ON gate_limit; DROP FUNCTION gate_limit_add_slot();

--changeset gate:001-call
--comment: the line. call_class is the rank (0 = INTERACTIVE ... 4 = BACKFILL); id (identity) breaks ties in arrival.
CREATE TABLE gate_call (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    limit_name       varchar(64)  NOT NULL REFERENCES gate_limit (name),
    call_class       smallint     NOT NULL CONSTRAINT gate_call_class_rank CHECK (call_class BETWEEN 0 AND 4),
    program          varchar(64)  NOT NULL,
    owner            varchar(128) NOT NULL,
    state            varchar(10)  NOT NULL CONSTRAINT gate_call_state
        CHECK (state IN ('WAITING', 'GRANTED', 'DONE', 'CANCELLED', 'EXPIRED')),
    enqueued_at      timestamptz  NOT NULL DEFAULT clock_timestamp(),
    lease_ms         integer      NOT NULL CONSTRAINT gate_call_lease_positive CHECK (lease_ms > 0),
    lease_expires_at timestamptz  NOT NULL,
    granted_at       timestamptz,
    done_at          timestamptz,
    outcome_status   integer
);
-- "Next call to grant": the head of one limit's line, in class then arrival order, only over waiting rows.
CREATE INDEX gate_call_line ON gate_call (limit_name, call_class, enqueued_at, id) WHERE state = 'WAITING';
-- One heartbeat statement renews every waiting call of one gate instance.
CREATE INDEX gate_call_owner ON gate_call (owner) WHERE state = 'WAITING';
-- Clearing expired leases looks only at waiting rows, oldest lease first.
CREATE INDEX gate_call_lease ON gate_call (lease_expires_at) WHERE state = 'WAITING';
--rollback DROP TABLE gate_call;

--changeset gate:001-send
--comment: the send log: one row per grant. "Sends in the last window" is an index range scan.
CREATE TABLE gate_send (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    limit_name varchar(64) NOT NULL REFERENCES gate_limit (name) ON DELETE CASCADE,
    call_id    bigint      NOT NULL,
    sent_at    timestamptz NOT NULL
);
CREATE INDEX gate_send_window ON gate_send (limit_name, sent_at);
--rollback DROP TABLE gate_send;
