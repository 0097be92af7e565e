--liquibase formatted sql

--changeset gate:020-key-indexes
--comment: removing a key's row checks every table that references it, with a plain query on the referencing column: gate_call by limit name (the finished-calls index, now over every call, serves retention as before) and gate_limit by parent (every row with a parent). The keys' index holds the template alone, so touching a key's last use (on each of its calls) changes no indexed column.
DROP INDEX gate_call_finished;
CREATE INDEX gate_call_finished ON gate_call (limit_name, done_at);
DROP INDEX gate_limit_parent;
CREATE INDEX gate_limit_parent ON gate_limit (parent_name) WHERE parent_name IS NOT NULL;
DROP INDEX gate_limit_keys;
CREATE INDEX gate_limit_keys ON gate_limit (template_name) WHERE template_name IS NOT NULL;
--rollback DROP INDEX gate_limit_keys; CREATE INDEX gate_limit_keys ON gate_limit (template_name, key_used_at) WHERE template_name IS NOT NULL;
--rollback DROP INDEX gate_limit_parent; CREATE INDEX gate_limit_parent ON gate_limit (parent_name) WHERE parent_name IS NOT NULL AND keyed;
--rollback DROP INDEX gate_call_finished; CREATE INDEX gate_call_finished ON gate_call (limit_name, done_at) WHERE state NOT IN ('WAITING', 'GRANTED');
