package dev.gate.store;

import dev.gate.dev.GateDatabase;
import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.Pace;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The vendor's fixed blocks in SQL (gate_block_start, gate_block_end: what the try statement and the status page use)
 * and in Java ({@link CalendarBlocks}: what the grant pass uses) agree, on instants around the clock changes of zones
 * with an hour's, a half hour's and no daylight saving, for reset times a change skips or repeats; and every zone the
 * gate accepts (every id Java knows, fixed offsets in each of Java's spellings, the abbreviations) means the same
 * instants on both paths, or is refused naming aligned.zone.
 */
class AlignedBlocksTest {

    private static Connection c;

    @BeforeAll
    static void database() throws SQLException {
        c = GateDatabase.fresh("gate_aligned_blocks_test").connect();
    }

    @AfterAll
    static void close() throws SQLException {
        c.close();
    }

    @Test
    void theSqlBlocksAreTheJavaBlocksAroundClockChanges() throws SQLException {
        String[] zones = {"America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"};
        LocalTime[] resets = {LocalTime.MIDNIGHT, LocalTime.of(2, 30), LocalTime.of(1, 30), LocalTime.of(23, 0),
                LocalTime.of(0, 15)};
        Duration[] lengths = {Duration.ofDays(1), Duration.ofHours(1), Duration.ofMinutes(15), Duration.ofSeconds(10),
                Duration.ofHours(8)};
        // the days around each zone's 2026 clock changes (and an ordinary day)
        Instant[] around = {Instant.parse("2026-03-08T10:00:00Z"), Instant.parse("2026-11-01T09:00:00Z"),
                Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-10-25T01:00:00Z"),
                Instant.parse("2026-04-04T15:00:00Z"), Instant.parse("2026-10-03T15:30:00Z"),
                Instant.parse("2026-06-15T12:00:00Z")};
        Random random = new Random(11);
        int compared = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT gate_block_start(?::timestamptz, ?, ?::time, ?), "
                + "gate_block_end(?::timestamptz, ?, ?::time, ?)")) {
            for (String zone : zones) {
                for (LocalTime at : resets) {
                    for (Duration length : lengths) {
                        CalendarBlocks blocks = new CalendarBlocks(length, ZoneId.of(zone), at);
                        List<Instant> instants = new ArrayList<>();
                        for (Instant a : around) {
                            for (int i = 0; i < 12; i++) { // within a day and a half of the change
                                instants.add(a.plusMillis(random.nextLong(-36 * 3_600_000L, 36 * 3_600_000L)));
                            }
                            Instant edge = blocks.at(a).end(); // a block's edge, and a microsecond either side
                            instants.add(edge);
                            instants.add(edge.minusNanos(1_000));
                            instants.add(edge.plusNanos(1_000));
                        }
                        for (Instant t : instants) {
                            CalendarBlocks.Block block = blocks.at(t);
                            ps.setString(1, t.toString());
                            ps.setString(2, zone);
                            ps.setString(3, at.toString());
                            ps.setLong(4, length.toMillis());
                            ps.setString(5, t.toString());
                            ps.setString(6, zone);
                            ps.setString(7, at.toString());
                            ps.setLong(8, length.toMillis());
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                String where = blocks + " at " + t;
                                assertEquals(block.start(), Times.get(rs, "gate_block_start"), "start of " + where);
                                assertEquals(block.end(), Times.get(rs, "gate_block_end"), "end of " + where);
                            }
                            compared++;
                        }
                    }
                }
            }
        }
        System.out.println("aligned blocks: " + compared + " instants, SQL and Java agree on each block");
    }

    @Test
    void everyZoneTheGateAcceptsMeansTheSameInstantsInSqlAndJavaAndTheRestAreRefused() throws SQLException {
        java.util.Set<String> names = new java.util.TreeSet<>(ZoneId.getAvailableZoneIds());
        names.addAll(List.of("+05:00", "-08:00", "+05:30", "-03:30", "+05:45", "+14:00", "-12:00", "+00:00", "Z",
                "UTC+05:00", "UTC-08:00", "GMT+05:30", "GMT-08:00", "UT+01:00", "UTC", "GMT", "UT", "UCT",
                "Etc/GMT-5", "Etc/GMT+8", "CET", "EET", "MET", "WET", "EST5EDT", "PST8PDT"));
        List<String> refused = new ArrayList<>();
        List<String> refusedByTheDatabase = new ArrayList<>();
        Instant now = Instant.now();
        int zones = 0;
        int compared = 0;
        for (String name : names) {
            ZoneId given = ZoneId.of(name);
            ZoneId kept;
            try {
                kept = dev.gate.rules.VendorZone.of(given);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().startsWith("aligned.zone '" + name + "'"), e.getMessage());
                refused.add(name);
                // refused for a reason: PostgreSQL reads the name as another clock than Java
                CalendarBlocks java = new CalendarBlocks(Duration.ofDays(1), ZoneId.of("UTC"), LocalTime.MIDNIGHT);
                Instant summer = Instant.parse("2026-07-01T12:00:00Z");
                try (PreparedStatement ps = c.prepareStatement("SELECT ?::timestamptz AT TIME ZONE ?")) {
                    ps.setString(1, summer.toString());
                    ps.setString(2, name);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        assertNotEquals(summer.atZone(given).toLocalDateTime(),
                                rs.getObject(1, java.time.LocalDateTime.class), name + " is read alike: why refuse it");
                    }
                }
                continue;
            }
            List<Pace> rules = List.of(Pace.aligned(1, new CalendarBlocks(Duration.ofDays(1), kept,
                    LocalTime.MIDNIGHT)));
            try {
                ZoneAgreement.check(c, rules, now);
            } catch (ZoneAgreement.Disagrees e) {
                assertTrue(e.getMessage().startsWith("aligned.zone '" + kept.getId() + "'"), e.getMessage());
                refusedByTheDatabase.add(name);
                continue;
            }
            compared += compareAroundClockChanges(kept, now);
            zones++;
        }
        System.out.println("zones: " + zones + " accepted, SQL and Java agree on " + compared + " instants around "
                + "their clock changes of the next two years; refused by the rule " + refused
                + ", by the database's time zone data " + refusedByTheDatabase);
        assertEquals(List.of("CET", "EET", "MET", "WET"), refused);
        for (String common : List.of("America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "+05:00", "UTC+05:30",
                "GMT-08:00", "UTC", "Z")) {
            assertTrue(!refusedByTheDatabase.contains(common), common + " must be accepted");
        }
        assertTrue(refusedByTheDatabase.size() < 20, "the database refused " + refusedByTheDatabase);
    }

    @Test
    void anOffsetIsKeptAsTheOffsetAloneWhateverItsSpelling() {
        assertEquals("+05:00", dev.gate.rules.VendorZone.of(ZoneId.of("UTC+05:00")).getId());
        assertEquals("-08:00", dev.gate.rules.VendorZone.of(ZoneId.of("GMT-08:00")).getId());
        assertEquals("+05:00", dev.gate.rules.VendorZone.of(ZoneId.of("Etc/GMT-5")).getId());
        assertEquals("UTC", dev.gate.rules.VendorZone.of(ZoneId.of("Z")).getId());
        assertEquals("UTC", dev.gate.rules.VendorZone.of(ZoneId.of("GMT")).getId());
        assertEquals("Europe/Berlin", dev.gate.rules.VendorZone.of(ZoneId.of("Europe/Berlin")).getId());
        assertThrows(IllegalArgumentException.class, () -> dev.gate.rules.VendorZone.of(ZoneId.of("CET")));
    }

    /** Blocks of a day and of 15 minutes from two reset times, around each clock change of the next 2 years. */
    private static int compareAroundClockChanges(ZoneId zone, Instant now) throws SQLException {
        List<Instant> around = new ArrayList<>(List.of(now, now.plus(Duration.ofDays(200))));
        java.time.zone.ZoneOffsetTransition change = zone.getRules().nextTransition(now);
        while (change != null && change.getInstant().isBefore(now.plus(Duration.ofDays(730)))) {
            around.add(change.getInstant());
            change = zone.getRules().nextTransition(change.getInstant());
        }
        long[] offsets = {0, 1, -1, 10_800_000_000L, -90_000_000_000L}; // microseconds
        List<String> ts = new ArrayList<>();
        List<String> ats = new ArrayList<>();
        List<Long> lengths = new ArrayList<>();
        List<CalendarBlocks.Block> expected = new ArrayList<>();
        for (Duration length : List.of(Duration.ofDays(1), Duration.ofMinutes(15))) {
            for (LocalTime at : List.of(LocalTime.MIDNIGHT, LocalTime.of(2, 30))) {
                CalendarBlocks blocks = new CalendarBlocks(length, zone, at);
                for (Instant a : around) {
                    for (long micros : offsets) {
                        Instant t = a.plusNanos(micros * 1_000);
                        ts.add(t.toString());
                        ats.add(at.toString());
                        lengths.add(length.toMillis());
                        expected.add(blocks.at(t));
                    }
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT gate_block_start(x.t, ?, x.a::time, x.l) AS s, "
                + "gate_block_end(x.t, ?, x.a::time, x.l) AS e FROM unnest(?::text[]::timestamptz[], ?::text[], "
                + "?::bigint[]) WITH ORDINALITY AS x (t, a, l, n) ORDER BY x.n")) {
            ps.setString(1, zone.getId());
            ps.setString(2, zone.getId());
            ps.setArray(3, c.createArrayOf("text", ts.toArray()));
            ps.setArray(4, c.createArrayOf("text", ats.toArray()));
            ps.setArray(5, c.createArrayOf("bigint", lengths.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                for (int i = 0; i < expected.size(); i++) {
                    rs.next();
                    String where = zone + " at " + ts.get(i) + ", blocks of " + lengths.get(i) + " ms from "
                            + ats.get(i);
                    assertEquals(expected.get(i).start(), Times.get(rs, "s"), "start of " + where);
                    assertEquals(expected.get(i).end(), Times.get(rs, "e"), "end of " + where);
                }
            }
        }
        return expected.size();
    }
}
