--liquibase formatted sql

--changeset gate:019-parent-limit
--comment: a keyed limit may sit under a parent limit (a store's 10 per minute inside the vendor's 600): each of its keys' grants takes a slot of the parent's beat and window too, so a call goes only when it fits both. The keys carry their template's parent. A parent is a plain limit (neither keyed nor a key, with no parent of its own).
ALTER TABLE gate_limit ADD COLUMN parent_name varchar(64) REFERENCES gate_limit (name);
ALTER TABLE gate_limit ADD CONSTRAINT gate_limit_parent CHECK (parent_name IS NULL OR keyed OR template_name IS NOT NULL);
CREATE INDEX gate_limit_parent ON gate_limit (parent_name) WHERE parent_name IS NOT NULL AND keyed;
--rollback DROP INDEX gate_limit_parent;
--rollback ALTER TABLE gate_limit DROP CONSTRAINT gate_limit_parent;
--rollback ALTER TABLE gate_limit DROP COLUMN parent_name;
