--liquibase formatted sql

--changeset gate:026-vacuum-by-rows
--comment: the line's tables churn (every call is written three times and deleted by retention; every send is written and deleted): autovacuum's default (20% of a table dead before a vacuum) falls behind on such queue tables, so they are vacuumed and analyzed after 1,000 rows instead, plus 2% of the table: a table kept long (a week of calls, a hundred million rows) is then not vacuumed back to back, each vacuum reading every index whole. The slot and count rows change on every grant or key: half-empty pages keep those updates HOT (no index writes, no dead index entries). gate_call stays full: its updates cannot be HOT (the state is in partial indexes' predicates).
ALTER TABLE gate_call SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_insert_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 1000, autovacuum_vacuum_cost_delay = 1);
ALTER TABLE gate_send SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_insert_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 1000, autovacuum_vacuum_cost_delay = 1);
ALTER TABLE gate_call_joiner SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 1000);
ALTER TABLE gate_limit SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 1000);
ALTER TABLE gate_slot SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
ALTER TABLE gate_key_count SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000);
ALTER TABLE gate_program_turn SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000);
ALTER TABLE gate_line_full SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000);
--rollback ALTER TABLE gate_call RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold, autovacuum_analyze_scale_factor, autovacuum_analyze_threshold, autovacuum_vacuum_cost_delay); ALTER TABLE gate_send RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold, autovacuum_analyze_scale_factor, autovacuum_analyze_threshold, autovacuum_vacuum_cost_delay); ALTER TABLE gate_call_joiner RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor, autovacuum_analyze_threshold); ALTER TABLE gate_limit RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor, autovacuum_analyze_threshold); ALTER TABLE gate_slot RESET (fillfactor, autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold); ALTER TABLE gate_key_count RESET (fillfactor, autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold); ALTER TABLE gate_program_turn RESET (fillfactor, autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold); ALTER TABLE gate_line_full RESET (fillfactor, autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold);
