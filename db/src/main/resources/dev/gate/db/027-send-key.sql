--liquibase formatted sql

--changeset gate:027-send-key
--comment: a send is known by its limit and its number (gate_send_seq, which every window count and the beat read); the surrogate id's index served no plan (pg_stat_user_indexes after the benchmarks, the soak and the test suite: 0 scans) and cost an index write on every grant. The limit and number become the primary key; the id column stays, unindexed.
ALTER TABLE gate_send DROP CONSTRAINT gate_send_pkey;
ALTER TABLE gate_send ADD CONSTRAINT gate_send_seq PRIMARY KEY USING INDEX gate_send_seq;
--rollback ALTER TABLE gate_send DROP CONSTRAINT gate_send_seq; CREATE UNIQUE INDEX gate_send_seq ON gate_send (limit_name, seq); ALTER TABLE gate_send ADD PRIMARY KEY (id);
