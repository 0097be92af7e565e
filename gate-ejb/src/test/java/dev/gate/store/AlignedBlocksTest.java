package dev.gate.store;

import dev.gate.dev.GateDatabase;
import dev.gate.rules.CalendarBlocks;
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

/**
 * The vendor's fixed blocks in SQL (gate_block_start, gate_block_end: what the try statement and the status page use)
 * and in Java ({@link CalendarBlocks}: what the grant pass uses) agree, on instants around the clock changes of zones
 * with an hour's, a half hour's and no daylight saving, for reset times a change skips or repeats.
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
}
