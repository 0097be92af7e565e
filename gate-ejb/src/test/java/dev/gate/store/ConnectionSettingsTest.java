package dev.gate.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every transaction of the gate runs at READ COMMITTED with its lock and statement timeouts, whatever the database's
 * defaults, on a connection's first use and ever after: also after a transaction that rolled back, and after a
 * migration took them off. On a pool shared with others, they end with each transaction.
 */
class ConnectionSettingsTest {

    @Test
    void everyTransactionRunsWithTheGatesSettings() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_connection_settings_test");
        // a database whose defaults differ from the gate's in every setting the gate relies on
        db.sql("ALTER DATABASE gate_connection_settings_test SET default_transaction_isolation = 'serializable'");
        db.sql("ALTER DATABASE gate_connection_settings_test SET lock_timeout = '7s'");
        try (HikariDataSource pool = db.pool(1); Jpa jpa = new Jpa(pool)) {
            Tx tx = new Tx(pool);
            List<String> expected = List.of("read committed", "200ms", "500ms");
            assertEquals(expected, jpa.run(em -> em.unwrap(org.hibernate.Session.class)
                    .doReturningWork(ConnectionSettingsTest::settings)), "JPA, before any Tx transaction");
            assertEquals(expected, tx.run(ConnectionSettingsTest::settings), "first transaction");
            assertThrows(IllegalStateException.class, () -> tx.run(c -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT 1 / 0");
                }
                return null;
            }));
            assertEquals(expected, tx.run(ConnectionSettingsTest::settings), "after a rollback");
            assertEquals(expected, jpa.run(em -> em.unwrap(org.hibernate.Session.class)
                    .doReturningWork(ConnectionSettingsTest::settings)), "JPA, same connection");

            try (Connection c = pool.getConnection()) {
                ConnectionSettings.lift(c);
                assertEquals(List.of("serializable", "7s", "0"), settings(c), "a migration runs on the defaults");
            }
            assertEquals(expected, tx.run(ConnectionSettingsTest::settings), "after a migration");
        }
    }

    @Test
    void onAPoolSharedWithOthersTheSettingsEndWithEachTransaction() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_connection_settings_shared_test");
        db.sql("ALTER DATABASE gate_connection_settings_shared_test SET lock_timeout = '7s'");
        try (HikariDataSource pool = db.pool(1)) {
            Tx tx = Tx.onShared(pool);
            assertEquals(List.of("read committed", "200ms", "500ms"), tx.run(ConnectionSettingsTest::settings),
                    "the gate's own transaction has its settings");
            assertEquals(List.of("read committed", "200ms", "500ms"), tx.runAlone(ConnectionSettingsTest::settings));
            try (Connection c = pool.getConnection()) { // the same physical connection, as another user gets it
                assertEquals(List.of("read committed", "7s", "0"), settings(c), "nothing leaks to the pool's next user");
            }
        }
    }

    private static List<String> settings(Connection c) throws java.sql.SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT current_setting('transaction_isolation'), current_setting('lock_timeout'), "
                        + "current_setting('statement_timeout')")) {
            rs.next();
            return List.of(rs.getString(1), rs.getString(2), rs.getString(3));
        }
    }
}
