--liquibase formatted sql

--changeset gate:023-key-follow
--comment: the housekeeping finds the keys that missed their template's change (its follow after commit did not run: an outage, a slow lock) by index: the templates by the keyed index, each one's keys older than it by (template_name, updated_at). A key's last use is not in the index, so a call on a key still changes no indexed column.
DROP INDEX gate_limit_keys;
CREATE INDEX gate_limit_keys ON gate_limit (template_name, updated_at) WHERE template_name IS NOT NULL;
CREATE INDEX gate_limit_templates ON gate_limit (name) WHERE keyed;
--rollback DROP INDEX gate_limit_templates; DROP INDEX gate_limit_keys; CREATE INDEX gate_limit_keys ON gate_limit (template_name) WHERE template_name IS NOT NULL;
