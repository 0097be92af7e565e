--liquibase formatted sql

--changeset gate:015-fair-programs
--comment: programs take turns inside a class (per limit, off by default): the program served longest ago in the class goes first, first come first served inside a program; gate_program_turn keeps when each was last served
ALTER TABLE gate_limit ADD COLUMN fair_programs boolean NOT NULL DEFAULT false;
ALTER TABLE gate_limit ADD CONSTRAINT gate_limit_one_order CHECK (NOT (fair_programs AND aging_after_ms IS NOT NULL));
CREATE TABLE gate_program_turn (
    limit_name varchar(64) NOT NULL REFERENCES gate_limit (name) ON DELETE CASCADE,
    call_class smallint    NOT NULL,
    program    varchar(64) NOT NULL,
    served_at  timestamptz NOT NULL,
    PRIMARY KEY (limit_name, call_class, program)
);
-- the programs waiting in a class, one index lookup each (a loose scan), and each one's oldest call
CREATE INDEX gate_call_program_line ON gate_call (limit_name, call_class, program, enqueued_at, id)
    WHERE state = 'WAITING';
--rollback DROP INDEX gate_call_program_line;
--rollback DROP TABLE gate_program_turn;
--rollback ALTER TABLE gate_limit DROP CONSTRAINT gate_limit_one_order;
--rollback ALTER TABLE gate_limit DROP COLUMN fair_programs;
