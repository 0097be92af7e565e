--liquibase formatted sql

--changeset gate:021-key-idle-index
--comment: the idle-key sweep walks the keys from the longest unused, a batch at a time, by this index (so 100,000 keys cost it a batch, not a scan); a key's last use is written at most once a minute, not on each call.
CREATE INDEX gate_limit_key_use ON gate_limit (key_used_at) WHERE template_name IS NOT NULL;
--rollback DROP INDEX gate_limit_key_use;
