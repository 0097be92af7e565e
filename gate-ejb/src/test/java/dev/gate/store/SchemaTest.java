package dev.gate.store;

import dev.gate.db.Migrations;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The changelog applies to an empty database, and a second run (a redeployment) changes nothing. */
class SchemaTest {

    @Test
    void appliesToAnEmptyDatabaseAndIsANoOpTheSecondTime() throws Exception {
        TestDatabase server = TestDatabase.server();
        server.freshDatabase("gate_schema_test");
        try (Connection c = server.connect("gate_schema_test")) {
            int applied = Migrations.apply(c);
            assertEquals(Set.of("gate_limit", "gate_slot", "gate_call", "gate_send", "gate_account",
                    "gate_limit_rule", "gate_call_joiner", "gate_saved", "gate_action", "databasechangelog",
                    "databasechangeloglock", "gate_backfill_result", "gate_backfill_fetch", "gate_program_turn",
                    "gate_line_full", "gate_key_count", "gate_removed_send",
                    // JBeret's job repository, owned by the changelog too
                    "job_instance", "job_execution", "step_execution", "partition_execution"), tables(c));
            assertTrue(applied >= 6, "change sets applied: " + applied);
            assertEquals(applied, count(c, "SELECT count(*) FROM databasechangelog"));

            assertEquals(0, Migrations.pending(c), "a second deployment must find nothing to run");
            assertEquals(0, Migrations.apply(c));
            assertEquals(applied, count(c, "SELECT count(*) FROM databasechangelog"));
        }
    }

    @Test
    void aLimitInsertedByHandGetsItsSlotRow() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_schema_slot_test");
        db.limit("vendor-a", 600, Duration.ofMinutes(1));
        assertEquals(1, db.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'vendor-a'"));
    }

    @Test
    @SuppressWarnings("deprecation") // Liquibase's count-limited update, as Migrations builds its Liquibase
    void zonesKeptBeforeVendorZoneAreRewrittenAsJavaReadThemAndTheBlocksFollow() throws Exception {
        TestDatabase server = TestDatabase.server();
        server.freshDatabase("gate_schema_zone_test");
        try (Connection c = server.connect("gate_schema_zone_test")) {
            liquibase.Liquibase lb = new liquibase.Liquibase(Migrations.CHANGELOG,
                    new liquibase.resource.ClassLoaderResourceAccessor(Migrations.class.getClassLoader()),
                    liquibase.database.DatabaseFactory.getInstance().findCorrectDatabaseImplementation(
                            new liquibase.database.jvm.JdbcConnection(c)));
            List<String> ids = lb.listUnrunChangeSets(new liquibase.Contexts(), new liquibase.LabelExpression())
                    .stream().map(liquibase.changelog.ChangeSet::getId).toList();
            int before = ids.indexOf("032-zone-ids");
            lb.update(before, new liquibase.Contexts(), new liquibase.LabelExpression()); // the schema before it
            String[][] kept = {{"UTC+05:00", "+05:00"}, {"GMT-08:00", "-08:00"}, {"UT+01:00", "+01:00"},
                    {"Z", "UTC"}, {"CET", "Europe/Brussels"}, {"EET", "Europe/Athens"}, {"WET", "Europe/Lisbon"},
                    {"MET", "Europe/Brussels"}, {"America/Los_Angeles", "America/Los_Angeles"}, {"+05:30", "+05:30"}};
            c.setAutoCommit(true); // Liquibase left it off
            try (Statement s = c.createStatement()) {
                for (int i = 0; i < kept.length; i++) {
                    s.execute("INSERT INTO gate_limit (name, calls, window_ms, aligned_zone, aligned_at) VALUES ('z"
                            + i + "', 5, 86400000, '" + kept[i][0] + "', '00:00')");
                    s.execute("INSERT INTO gate_limit_rule (limit_name, calls, window_ms, aligned_zone, aligned_at) "
                            + "VALUES ('z" + i + "', 9, 86400000, '" + kept[i][0] + "', '00:00')");
                }
            }
            assertEquals(ids.size() - before, Migrations.apply(c));
            for (int i = 0; i < kept.length; i++) {
                java.time.ZoneId read = dev.gate.rules.VendorZone.of(java.time.ZoneId.of(kept[i][1]));
                assertEquals(kept[i][1], read.getId(), "as Java keeps " + kept[i][0]);
                for (String table : new String[]{"gate_limit WHERE name", "gate_limit_rule WHERE limit_name"}) {
                    try (Statement s = c.createStatement();
                         ResultSet rs = s.executeQuery("SELECT aligned_zone, gate_block_end(timestamptz "
                                 + "'2026-07-01 12:00Z', aligned_zone, aligned_at, window_ms) FROM " + table
                                 + " = 'z" + i + "'")) {
                        rs.next();
                        assertEquals(kept[i][1], rs.getString(1), kept[i][0] + " in " + table);
                        assertEquals(java.time.LocalDate.of(2026, 7, 2).atStartOfDay(read).toInstant(),
                                rs.getObject(2, java.time.OffsetDateTime.class).toInstant(),
                                kept[i][0] + ": the day ends at the next midnight as Java reads it");
                    }
                }
            }
        }
    }

    private static Set<String> tables(Connection c) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static int count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
