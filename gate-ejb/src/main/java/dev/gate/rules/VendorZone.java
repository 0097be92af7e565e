package dev.gate.rules;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Set;

/**
 * The zone of a vendor's fixed blocks as the gate keeps it: one id that Java ({@link CalendarBlocks}, the grant pass)
 * and PostgreSQL ({@code gate_block_start}/{@code gate_block_end}: the try statement, the block's turn, the status)
 * read as the same instants. Two readings differ where Java accepts a name:
 * <ul>
 *   <li>A fixed offset ({@code +05:00}, {@code UTC+05:00}, {@code GMT-08:00}, {@code Etc/GMT-5}): PostgreSQL reads a
 *   text offset the POSIX way, its sign inverted. Kept as the offset alone ({@code +05:00}; {@code UTC} for zero),
 *   which the SQL functions read as an ISO offset.</li>
 *   <li>{@code CET}, {@code EET}, {@code MET}, {@code WET}: PostgreSQL takes them for its fixed abbreviations (no
 *   summer time), Java for zones with summer time. Refused: the region says what is meant.</li>
 * </ul>
 * What is left (region names) PostgreSQL must also know with the same rules; the store checks that against the
 * database when a limit is declared, as its time zone data may be older or newer than Java's.
 */
public final class VendorZone {

    /** Java's zones with summer time that PostgreSQL's default abbreviations name as a fixed offset. */
    static final Set<String> READ_AS_FIXED_BY_POSTGRESQL = Set.of("CET", "EET", "MET", "WET");

    private VendorZone() {
    }

    /**
     * The zone as the gate keeps it (see the class note).
     *
     * @throws IllegalArgumentException a zone the two readings cannot agree on, naming {@code aligned.zone}
     */
    public static ZoneId of(ZoneId zone) {
        ZoneId normalized = zone.normalized();
        if (normalized instanceof ZoneOffset offset) {
            return offset.getTotalSeconds() == 0 ? ZoneId.of("UTC") : offset;
        }
        if (READ_AS_FIXED_BY_POSTGRESQL.contains(zone.getId())) {
            throw new IllegalArgumentException("aligned.zone '" + zone.getId() + "': the database reads it as a fixed "
                    + "offset without summer time; name the region (e.g. Europe/Paris) or the offset (e.g. +01:00)");
        }
        return zone;
    }

    /**
     * A stored id read back: as {@link #of(ZoneId)}.
     *
     * @throws IllegalArgumentException not a zone, or one the two readings cannot agree on
     */
    public static ZoneId of(String id) {
        try {
            return of(ZoneId.of(id));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("aligned.zone '" + id + "': not a time zone");
        }
    }
}
