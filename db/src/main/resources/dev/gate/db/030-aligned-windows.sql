--liquibase formatted sql

--changeset gate:030-aligned-windows
--comment: a rule may count on the vendor's fixed windows (aligned): blocks of its window (a calendar day of aligned_zone from aligned_at, 23 or 25 hours on a daylight-saving day, or a whole part of that day) instead of a window sliding with each send.
ALTER TABLE gate_limit ADD COLUMN aligned_zone varchar(64), ADD COLUMN aligned_at time(0),
    ADD CONSTRAINT gate_limit_aligned CHECK ((aligned_zone IS NULL) = (aligned_at IS NULL)
        AND (aligned_zone IS NULL OR (window_ms BETWEEN 1000 AND 86400000 AND 86400000 % window_ms = 0)));
ALTER TABLE gate_limit_rule ADD COLUMN aligned_zone varchar(64), ADD COLUMN aligned_at time(0),
    ADD CONSTRAINT gate_limit_rule_aligned CHECK ((aligned_zone IS NULL) = (aligned_at IS NULL)
        AND (aligned_zone IS NULL OR (window_ms BETWEEN 1000 AND 86400000 AND 86400000 % window_ms = 0)));
--rollback ALTER TABLE gate_limit_rule DROP COLUMN aligned_zone, DROP COLUMN aligned_at; ALTER TABLE gate_limit DROP COLUMN aligned_zone, DROP COLUMN aligned_at;

--changeset gate:030-block-end splitStatements:false
--comment: the end of the block that holds t (CalendarBlocks.at(t).end() in Java, held equal by AlignedBlocksTest): the day of zone from at_time (a time a clock change skips moves forward by the gap; one it repeats is its standard-time occurrence), or the part of it of length_ms, the last part cut at the next day's start.
CREATE FUNCTION gate_block_end(t timestamptz, zone text, at_time time, length_ms bigint) RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    day date := (t AT TIME ZONE zone)::date;
    day_start timestamptz := (day + at_time) AT TIME ZONE zone;
    day_end timestamptz;
    block_end timestamptz;
BEGIN
    IF day_start > t THEN
        day := day - 1;
        day_start := (day + at_time) AT TIME ZONE zone;
    END IF;
    day_end := ((day + 1) + at_time) AT TIME ZONE zone;
    IF length_ms = 86400000 THEN
        RETURN day_end;
    END IF;
    block_end := day_start + (floor(extract(epoch FROM t - day_start) * 1000 / length_ms)::bigint + 1) * length_ms
        * interval '1 millisecond';
    RETURN least(block_end, day_end);
END $$;
--rollback DROP FUNCTION gate_block_end(timestamptz, text, time, bigint);

--changeset gate:030-block-start splitStatements:false
--comment: the start of the block that holds t (CalendarBlocks.at(t).start()): what the status page counts a block's use from.
CREATE FUNCTION gate_block_start(t timestamptz, zone text, at_time time, length_ms bigint) RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    day date := (t AT TIME ZONE zone)::date;
    day_start timestamptz := (day + at_time) AT TIME ZONE zone;
BEGIN
    IF day_start > t THEN
        day := day - 1;
        day_start := (day + at_time) AT TIME ZONE zone;
    END IF;
    IF length_ms = 86400000 THEN
        RETURN day_start; -- the calendar day, 23 or 25 hours on a clock change
    END IF;
    RETURN day_start + floor(extract(epoch FROM t - day_start) * 1000 / length_ms)::bigint * length_ms
        * interval '1 millisecond';
END $$;
--rollback DROP FUNCTION gate_block_start(timestamptz, text, time, bigint);

--changeset gate:030-block-turn splitStatements:false
--comment: the beat paces inside a vendor's block: after a send at sent, the next slot is never later than the end of the block the send counts in (its margin after it) of each aligned rule of the limit (SlotRule.blockTurn); null when the limit has none.
CREATE FUNCTION gate_block_turn(lim text, sent timestamptz) RETURNS timestamptz
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT min(gate_block_end(sent + coalesce(l.receipt_margin_ms::numeric, least(b.window_ms / 200.0, 100))
                                     * interval '1 millisecond', b.aligned_zone, b.aligned_at, b.window_ms))
    FROM gate_limit l CROSS JOIN LATERAL (
        SELECT l.window_ms, l.aligned_zone, l.aligned_at
        UNION ALL
        SELECT r.window_ms, r.aligned_zone, r.aligned_at FROM gate_limit_rule r WHERE r.limit_name = l.name) b
    WHERE l.name = lim AND b.aligned_zone IS NOT NULL
$$;
--rollback DROP FUNCTION gate_block_turn(text, timestamptz);
