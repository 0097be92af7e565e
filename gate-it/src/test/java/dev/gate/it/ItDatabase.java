package dev.gate.it;

import dev.gate.dev.TcpProxy;
import dev.gate.dev.TestDatabase;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Before any test class (and so before Arquillian starts WildFly): a fresh database for the server, on the test
 * PostgreSQL ({@code GATE_TEST_DB_URL}, or an embedded one), reached through a TCP proxy the tests can cut.
 * arquillian.xml hands it to the server as gate.db.*.
 */
public class ItDatabase implements LauncherSessionListener {

    static final String NAME = "gate_it";

    /** Between the server and its database, so that OutageIT can cut the server's database away. */
    static TcpProxy proxy;

    /** A count over the server's tables, read directly (not through the proxy), from a test run as a client. */
    static long count(String sql, Object... args) throws java.sql.SQLException {
        try (java.sql.Connection c = TestDatabase.server().connect(NAME);
             java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        TestDatabase server = TestDatabase.server();
        server.freshDatabase(NAME);
        try {
            proxy = new TcpProxy(server.host(), server.port());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("could not start the database proxy", e);
        }
        System.setProperty("gate.it.db.url", "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + NAME);
        System.setProperty("gate.it.db.user", server.user());
        System.setProperty("gate.it.db.password", server.password().isEmpty() ? "-" : server.password());
    }
}
