package dev.gate.db;

import dev.gate.dev.TestDatabase;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The changelog applies to an empty database, and a second run (a redeployment) changes nothing. */
class SchemaTest {

    private static final String CHANGELOG = "dev/gate/db/changelog.xml";

    @Test
    void appliesToAnEmptyDatabaseAndIsANoOpTheSecondTime() throws Exception {
        TestDatabase server = TestDatabase.server();
        server.freshDatabase("gate_schema_test");

        try (Connection c = server.connect("gate_schema_test")) {
            update(c);
            assertEquals(Set.of("gate_limit", "gate_slot", "gate_call", "gate_send", "gate_account", "gate_limit_rule", "gate_call_joiner", "gate_saved", "databasechangelog",
                    "databasechangeloglock"), tables(c));
            int applied = count(c, "SELECT count(*) FROM databasechangelog");
            assertTrue(applied >= 6, "changesets recorded: " + applied);

            try (Liquibase again = liquibase(c)) {
                assertEquals(0, again.listUnrunChangeSets(new Contexts(), new LabelExpression()).size(),
                        "a second deployment must find nothing to run");
                again.update(new Contexts(), new LabelExpression());
            }
            assertEquals(applied, count(c, "SELECT count(*) FROM databasechangelog"));
        }
    }

    @Test
    void aLimitInsertedByHandGetsItsSlotRow() throws Exception {
        TestDatabase server = TestDatabase.server();
        server.freshDatabase("gate_schema_slot_test");
        try (Connection c = server.connect("gate_schema_slot_test")) {
            update(c);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('vendor-a', 600, 60000)");
            }
            assertEquals(1, count(c, "SELECT count(*) FROM gate_slot WHERE limit_name = 'vendor-a'"));
        }
    }

    private static void update(Connection c) throws Exception {
        try (Liquibase liquibase = liquibase(c)) {
            liquibase.update(new Contexts(), new LabelExpression());
        }
    }

    private static Liquibase liquibase(Connection c) throws Exception {
        Database db = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
        return new Liquibase(CHANGELOG, new ClassLoaderResourceAccessor(SchemaTest.class.getClassLoader()), db) {
            @Override
            public void close() {
                // the test owns the connection
            }
        };
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
