--liquibase formatted sql

--changeset gate:039-block-turn-plpgsql splitStatements:false
--comment: gate_block_turn (030) as PL/pgSQL, the same query: a SQL function that reads tables is never inlined, and its query was planned again on every statement that called it (0.28 ms of a grant's 0.72 ms, on every grant, aligned rules or not); PL/pgSQL keeps the plan for the session.
CREATE OR REPLACE FUNCTION gate_block_turn(lim text, sent timestamptz) RETURNS timestamptz
    LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (SELECT min(gate_block_end(sent + coalesce(l.receipt_margin_ms::numeric, least(b.window_ms / 200.0, 100))
                                             * interval '1 millisecond', b.aligned_zone, b.aligned_at, b.window_ms))
            FROM gate_limit l CROSS JOIN LATERAL (
                SELECT l.window_ms, l.aligned_zone, l.aligned_at
                UNION ALL
                SELECT r.window_ms, r.aligned_zone, r.aligned_at FROM gate_limit_rule r WHERE r.limit_name = l.name) b
            WHERE l.name = lim AND b.aligned_zone IS NOT NULL);
END
$$;
--rollback CREATE OR REPLACE FUNCTION gate_block_turn(lim text, sent timestamptz) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT min(gate_block_end(sent + coalesce(l.receipt_margin_ms::numeric, least(b.window_ms / 200.0, 100)) * interval '1 millisecond', b.aligned_zone, b.aligned_at, b.window_ms)) FROM gate_limit l CROSS JOIN LATERAL (SELECT l.window_ms, l.aligned_zone, l.aligned_at UNION ALL SELECT r.window_ms, r.aligned_zone, r.aligned_at FROM gate_limit_rule r WHERE r.limit_name = l.name) b WHERE l.name = lim AND b.aligned_zone IS NOT NULL $$;
