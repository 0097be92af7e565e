package dev.gate.store;

import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.Pace;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the database reads an aligned rule's zone as the rules do, asked when a limit is declared: the grant pass
 * counts blocks in Java, the try statement and the status in SQL, and PostgreSQL's time zone data is its own (older
 * or newer than Java's, or without the zone). The days' starts of the zone and reset time for the two years to come
 * (a day each week, and the days around each of Java's clock changes) must be the same instants in both, else the
 * declaration is refused naming {@code aligned.zone}.
 */
final class ZoneAgreement {

    private static final int DAYS = 2 * 366;
    private static final int EVERY = 7;

    // The first day (as Java starts it) that SQL starts elsewhere, seen from its first or its last microsecond.
    private static final String FIRST_DISAGREEMENT = """
            SELECT min(x.s) FILTER (WHERE gate_block_start(x.t, ?, ?::time, 86400000) IS DISTINCT FROM x.s)
            FROM unnest(?::text[]::timestamptz[], ?::text[]::timestamptz[]) AS x (t, s)""";

    /** A zone the database reads otherwise, or does not know. */
    static final class Disagrees extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Disagrees(String message) {
            super(message, null, false, false);
        }
    }

    private ZoneAgreement() {
    }

    /**
     * Every aligned rule among {@code rules}, checked against the database from {@code from} on.
     *
     * @throws Disagrees a rule whose zone the database reads otherwise
     */
    static void check(Connection c, List<Pace> rules, Instant from) throws SQLException {
        for (Pace rule : rules) {
            if (rule.isAligned()) {
                check(c, rule.blocks(), from);
            }
        }
    }

    private static void check(Connection c, CalendarBlocks blocks, Instant from) throws SQLException {
        CalendarBlocks days = new CalendarBlocks(Duration.ofDays(1), blocks.zone(), blocks.at());
        List<String> instants = new ArrayList<>();
        List<String> starts = new ArrayList<>();
        java.time.zone.ZoneRules clock = blocks.zone().getRules();
        CalendarBlocks.Block day = days.at(from.minus(Duration.ofDays(1)));
        for (int i = 0; i < DAYS; i++) { // a day's first and last microsecond
            java.time.zone.ZoneOffsetTransition change = clock.nextTransition(day.start());
            boolean nearChange = change != null
                    && Duration.between(day.start(), change.getInstant()).compareTo(Duration.ofDays(3)) < 0
                    || clock.previousTransition(day.start()) != null && Duration.between(
                    clock.previousTransition(day.start()).getInstant(), day.start()).compareTo(Duration.ofDays(2)) < 0;
            if (i % EVERY == 0 || nearChange) {
                instants.add(day.start().toString());
                starts.add(day.start().toString());
                instants.add(day.end().minusNanos(1_000).toString());
                starts.add(day.start().toString());
            }
            day = days.at(day.end());
        }
        String zone = blocks.zone().getId();
        try (PreparedStatement ps = c.prepareStatement(FIRST_DISAGREEMENT)) {
            ps.setString(1, zone);
            ps.setString(2, blocks.at().toString());
            ps.setArray(3, c.createArrayOf("text", instants.toArray()));
            ps.setArray(4, c.createArrayOf("text", starts.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Instant first = Times.get(rs, "min");
                if (first != null) {
                    throw new Disagrees("aligned.zone '" + zone + "': the database's time zone data starts the day "
                            + "of " + first.atZone(blocks.zone()).toLocalDate() + " elsewhere than the gate's; name "
                            + "a zone both agree on, or bring the database's time zone data up to date");
                }
            }
        } catch (SQLException e) {
            if ("22023".equals(e.getSQLState())) { // invalid_parameter_value: time zone not recognized
                throw new Disagrees("aligned.zone '" + zone + "': the database does not know this zone");
            }
            throw e;
        }
    }
}
