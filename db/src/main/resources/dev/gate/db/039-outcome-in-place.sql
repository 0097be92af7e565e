--liquibase formatted sql

--changeset gate:039-outcome-in-place
--comment: a plain success's outcome is a HOT update of its call row: no new index entries, no dead ones for vacuum, the row rewritten on its own page. PostgreSQL makes an update HOT only when no column any index names (key, predicate or expression) changes, and the outcome changes state and done_at; so no index names them any more. Each index names instead a stored column derived from them whose value the outcome leaves as it was: waiting (the line's indexes), in_flight (granted calls and, until the housekeeper settles them at their lease's end, the ones done by a plain outcome: unsettled), open_dedupe (a waiting or granted call's dedupe key), ended_at (done_at of a settled ended call: retention's index, also the index of each limit's calls). Readers of state and done_at read them as before. Rows keep room on their page for the update (fillfactor 80), rewritten so by the new columns.
ALTER TABLE gate_call SET (fillfactor = 80);
ALTER TABLE gate_call ADD COLUMN unsettled boolean NOT NULL DEFAULT false;
ALTER TABLE gate_call
    ADD COLUMN waiting boolean GENERATED ALWAYS AS (state = 'WAITING') STORED,
    ADD COLUMN in_flight boolean GENERATED ALWAYS AS (state = 'GRANTED' OR (state = 'DONE' AND unsettled)) STORED,
    ADD COLUMN open_dedupe varchar(200)
        GENERATED ALWAYS AS (CASE WHEN state IN ('WAITING', 'GRANTED') THEN dedupe_key END) STORED,
    ADD COLUMN ended_at timestamptz
        GENERATED ALWAYS AS (CASE WHEN state NOT IN ('WAITING', 'GRANTED') AND NOT unsettled THEN done_at END) STORED;
DROP INDEX gate_call_line;
CREATE INDEX gate_call_line ON gate_call (limit_name, call_class, enqueued_at, id) WHERE waiting;
DROP INDEX gate_call_program_line;
CREATE INDEX gate_call_program_line ON gate_call (limit_name, call_class, program, enqueued_at, id) WHERE waiting;
DROP INDEX gate_call_owner;
CREATE INDEX gate_call_owner ON gate_call (owner) WHERE waiting;
DROP INDEX gate_call_lease;
CREATE INDEX gate_call_lease ON gate_call (lease_expires_at) WHERE waiting;
DROP INDEX gate_call_deadline;
CREATE INDEX gate_call_deadline ON gate_call (deadline_at) WHERE waiting AND deadline_at IS NOT NULL;
DROP INDEX gate_call_costly_waiting;
CREATE INDEX gate_call_costly_waiting ON gate_call (limit_name) WHERE waiting AND cost > 1;
DROP INDEX gate_call_key_waiting;
CREATE INDEX gate_call_key_waiting ON gate_call (limit_name, concurrency_key)
    WHERE waiting AND concurrency_key IS NOT NULL;
DROP INDEX gate_call_key_granted;
CREATE INDEX gate_call_key_granted ON gate_call (limit_name, concurrency_key)
    WHERE in_flight AND concurrency_key IS NOT NULL;
DROP INDEX gate_call_granted_lease;
CREATE INDEX gate_call_granted_lease ON gate_call (lease_expires_at) WHERE in_flight;
DROP INDEX gate_call_dedupe;
CREATE UNIQUE INDEX gate_call_dedupe ON gate_call (limit_name, open_dedupe) WHERE open_dedupe IS NOT NULL;
DROP INDEX gate_call_finished;
CREATE INDEX gate_call_finished ON gate_call (limit_name, ended_at);
--rollback DROP INDEX gate_call_finished; CREATE INDEX gate_call_finished ON gate_call (limit_name, done_at); DROP INDEX gate_call_dedupe; CREATE UNIQUE INDEX gate_call_dedupe ON gate_call (limit_name, dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('WAITING', 'GRANTED'); DROP INDEX gate_call_granted_lease; CREATE INDEX gate_call_granted_lease ON gate_call (lease_expires_at) WHERE state = 'GRANTED'; DROP INDEX gate_call_key_granted; CREATE INDEX gate_call_key_granted ON gate_call (limit_name, concurrency_key) WHERE state = 'GRANTED' AND concurrency_key IS NOT NULL; DROP INDEX gate_call_key_waiting; CREATE INDEX gate_call_key_waiting ON gate_call (limit_name, concurrency_key) WHERE state = 'WAITING' AND concurrency_key IS NOT NULL; DROP INDEX gate_call_costly_waiting; CREATE INDEX gate_call_costly_waiting ON gate_call (limit_name) WHERE state = 'WAITING' AND cost > 1; DROP INDEX gate_call_deadline; CREATE INDEX gate_call_deadline ON gate_call (deadline_at) WHERE state = 'WAITING' AND deadline_at IS NOT NULL; DROP INDEX gate_call_lease; CREATE INDEX gate_call_lease ON gate_call (lease_expires_at) WHERE state = 'WAITING'; DROP INDEX gate_call_owner; CREATE INDEX gate_call_owner ON gate_call (owner) WHERE state = 'WAITING'; DROP INDEX gate_call_program_line; CREATE INDEX gate_call_program_line ON gate_call (limit_name, call_class, program, enqueued_at, id) WHERE state = 'WAITING'; DROP INDEX gate_call_line; CREATE INDEX gate_call_line ON gate_call (limit_name, call_class, enqueued_at, id) WHERE state = 'WAITING'; ALTER TABLE gate_call DROP COLUMN ended_at, DROP COLUMN open_dedupe, DROP COLUMN in_flight, DROP COLUMN waiting, DROP COLUMN unsettled; ALTER TABLE gate_call RESET (fillfactor);
