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
                    "gate_line_full", "gate_key_count",
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
