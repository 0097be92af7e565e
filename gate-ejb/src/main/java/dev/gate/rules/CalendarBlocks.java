package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;

/**
 * A vendor's fixed windows ("10,000 a day, reset at 00:00 US/Pacific", "900 per 15-minute block"): time cut into
 * blocks on the vendor's calendar rather than a window sliding with each send. A block is a calendar day of the zone
 * from {@code at} to the next day's {@code at} (23 or 25 hours on a daylight-saving day), or a part of that day: blocks
 * of {@code length} from the day's start, the last one cut at the next day's start when a changed clock makes the day
 * shorter or longer than whole blocks. A reset time that a clock change skips moves forward by the gap; one that a
 * clock change repeats is its second (standard-time) occurrence, as PostgreSQL reads such a local time
 * ({@code gate_block_end}, the same rule in SQL, answers as this class does). The zone is kept as {@link VendorZone}
 * gives it, so that the SQL reads it as the same instants.
 */
public final class CalendarBlocks {

    private static final Duration DAY = Duration.ofDays(1);

    private final Duration length;
    private final ZoneId zone;
    private final LocalTime at;

    /**
     * @throws IllegalArgumentException the length is not a day or a whole part of a day (24 h divided by it), or is
     *     shorter than a second; or a zone the database reads otherwise ({@link VendorZone})
     */
    public CalendarBlocks(Duration length, ZoneId zone, LocalTime at) {
        this.length = Objects.requireNonNull(length, "length");
        this.zone = VendorZone.of(Objects.requireNonNull(zone, "zone"));
        this.at = Objects.requireNonNull(at, "at");
        if (length.compareTo(Duration.ofSeconds(1)) < 0 || length.compareTo(DAY) > 0
                || DAY.toMillis() % length.toMillis() != 0) {
            throw new IllegalArgumentException("an aligned window is a day or a whole part of one (1 s to 24 h, "
                    + "dividing 24 h): " + length);
        }
    }

    /** A block: from {@code start} (inclusive) to {@code end} (exclusive). */
    public record Block(Instant start, Instant end) {

        public Duration length() {
            return Duration.between(start, end);
        }

        public boolean contains(Instant t) {
            return !t.isBefore(start) && t.isBefore(end);
        }
    }

    /** The block that holds {@code t}. */
    public Block at(Instant t) {
        LocalDate day = t.atZone(zone).toLocalDate();
        Instant dayStart = start(day);
        if (dayStart.isAfter(t)) {
            day = day.minusDays(1);
            dayStart = start(day);
        }
        Instant dayEnd = start(day.plusDays(1));
        if (length.equals(DAY)) {
            return new Block(dayStart, dayEnd);
        }
        long index = Duration.between(dayStart, t).toMillis() / length.toMillis();
        Instant start = dayStart.plus(length.multipliedBy(index));
        Instant end = start.plus(length);
        return new Block(start, end.isAfter(dayEnd) ? dayEnd : end);
    }

    public Duration length() {
        return length;
    }

    public ZoneId zone() {
        return zone;
    }

    public LocalTime at() {
        return at;
    }

    /** Whether the blocks are whole calendar days (each 23, 24 or 25 hours). */
    public boolean days() {
        return length.equals(DAY);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CalendarBlocks b && length.equals(b.length) && zone.equals(b.zone) && at.equals(b.at);
    }

    @Override
    public int hashCode() {
        return Objects.hash(length, zone, at);
    }

    @Override
    public String toString() {
        return "blocks of " + length + " from " + at + " " + zone;
    }

    /** The block after the one that holds {@code t}. */
    public Block next(Instant t) {
        return at(at(t).end());
    }

    // the day's reset: a time in a gap moves forward by the gap, a time in an overlap takes the later offset (as
    // PostgreSQL's "timestamp AT TIME ZONE" does)
    private Instant start(LocalDate day) {
        return ZonedDateTime.of(day, at, zone).withLaterOffsetAtOverlap().toInstant();
    }
}
