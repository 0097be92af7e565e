--liquibase formatted sql

--changeset gate:032-zone-local splitStatements:false
--comment: the local time of t in a vendor's zone as Java reads the zone (VendorZone): a fixed offset is kept as '+05:00' and read as an ISO offset (PostgreSQL reads a text offset the POSIX way, its sign inverted); anything else is a zone name.
CREATE FUNCTION gate_zone_local(t timestamptz, zone text) RETURNS timestamp
    LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN zone ~ '^[+-]' THEN t AT TIME ZONE zone::interval ELSE t AT TIME ZONE zone END
$$;
--rollback DROP FUNCTION gate_zone_local(timestamptz, text);

--changeset gate:032-zone-instant splitStatements:false
--comment: the instant of a local time in a vendor's zone, read as gate_zone_local reads the zone (a time a clock change skips moves forward by the gap; one it repeats is its standard-time occurrence).
CREATE FUNCTION gate_zone_instant(local timestamp, zone text) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN zone ~ '^[+-]' THEN local AT TIME ZONE zone::interval ELSE local AT TIME ZONE zone END
$$;
--rollback DROP FUNCTION gate_zone_instant(timestamp, text);

--changeset gate:032-block-end splitStatements:false
--comment: gate_block_end (030) reading the zone through gate_zone_local / gate_zone_instant.
CREATE OR REPLACE FUNCTION gate_block_end(t timestamptz, zone text, at_time time, length_ms bigint) RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    day date := gate_zone_local(t, zone)::date;
    day_start timestamptz := gate_zone_instant(day + at_time, zone);
    day_end timestamptz;
    block_end timestamptz;
BEGIN
    IF day_start > t THEN
        day := day - 1;
        day_start := gate_zone_instant(day + at_time, zone);
    END IF;
    day_end := gate_zone_instant((day + 1) + at_time, zone);
    IF length_ms = 86400000 THEN
        RETURN day_end;
    END IF;
    block_end := day_start + (floor(extract(epoch FROM t - day_start) * 1000 / length_ms)::bigint + 1) * length_ms
        * interval '1 millisecond';
    RETURN least(block_end, day_end);
END $$;
--rollback CREATE OR REPLACE FUNCTION gate_block_end(t timestamptz, zone text, at_time time, length_ms bigint) RETURNS timestamptz LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$ DECLARE day date := (t AT TIME ZONE zone)::date; day_start timestamptz := (day + at_time) AT TIME ZONE zone; day_end timestamptz; block_end timestamptz; BEGIN IF day_start > t THEN day := day - 1; day_start := (day + at_time) AT TIME ZONE zone; END IF; day_end := ((day + 1) + at_time) AT TIME ZONE zone; IF length_ms = 86400000 THEN RETURN day_end; END IF; block_end := day_start + (floor(extract(epoch FROM t - day_start) * 1000 / length_ms)::bigint + 1) * length_ms * interval '1 millisecond'; RETURN least(block_end, day_end); END $$;

--changeset gate:032-block-start splitStatements:false
--comment: gate_block_start (030) reading the zone through gate_zone_local / gate_zone_instant.
CREATE OR REPLACE FUNCTION gate_block_start(t timestamptz, zone text, at_time time, length_ms bigint) RETURNS timestamptz
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    day date := gate_zone_local(t, zone)::date;
    day_start timestamptz := gate_zone_instant(day + at_time, zone);
BEGIN
    IF day_start > t THEN
        day := day - 1;
        day_start := gate_zone_instant(day + at_time, zone);
    END IF;
    IF length_ms = 86400000 THEN
        RETURN day_start; -- the calendar day, 23 or 25 hours on a clock change
    END IF;
    RETURN day_start + floor(extract(epoch FROM t - day_start) * 1000 / length_ms)::bigint * length_ms
        * interval '1 millisecond';
END $$;
--rollback CREATE OR REPLACE FUNCTION gate_block_start(t timestamptz, zone text, at_time time, length_ms bigint) RETURNS timestamptz LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$ DECLARE day date := (t AT TIME ZONE zone)::date; day_start timestamptz := (day + at_time) AT TIME ZONE zone; BEGIN IF day_start > t THEN day := day - 1; day_start := (day + at_time) AT TIME ZONE zone; END IF; IF length_ms = 86400000 THEN RETURN day_start;  END IF; RETURN day_start + floor(extract(epoch FROM t - day_start) * 1000 / length_ms)::bigint * length_ms * interval '1 millisecond'; END $$;

--changeset gate:032-zone-ids splitStatements:false
--comment: zones kept before VendorZone, as Java read them: an offset with a prefix ('UTC+05:00', 'GMT-08:00', 'UT+01:00') as the offset alone, 'Z' as 'UTC'; CET, MET, EET, WET as the regions Java's time zone data links them to (PostgreSQL read them as fixed abbreviations).
CREATE FUNCTION pg_temp.gate_zone_kept(zone text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN zone IN ('CET', 'MET') THEN 'Europe/Brussels'
        WHEN zone = 'EET' THEN 'Europe/Athens'
        WHEN zone = 'WET' THEN 'Europe/Lisbon'
        WHEN zone IN ('Z', 'GMT', 'UT', 'UCT') THEN 'UTC'
        WHEN zone ~ '^(UTC|GMT|UT)[+-]' THEN regexp_replace(zone, '^(UTC|GMT|UT)', '')
        ELSE zone END
$$;
UPDATE gate_limit SET aligned_zone = pg_temp.gate_zone_kept(aligned_zone) WHERE aligned_zone IS NOT NULL;
UPDATE gate_limit_rule SET aligned_zone = pg_temp.gate_zone_kept(aligned_zone) WHERE aligned_zone IS NOT NULL;
DROP FUNCTION pg_temp.gate_zone_kept(text);
--rollback not required
