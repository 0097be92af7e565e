package dev.gate.it;

import dev.gate.dev.TestDatabase;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Before any test class (and so before Arquillian starts WildFly): a fresh database for the server, on the test
 * PostgreSQL ({@code GATE_TEST_DB_URL}, or an embedded one). arquillian.xml hands it to the server as gate.db.*.
 */
public class ItDatabase implements LauncherSessionListener {

    static final String NAME = "gate_it";

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        TestDatabase server = TestDatabase.server();
        System.setProperty("gate.it.db.url", server.freshDatabase(NAME));
        System.setProperty("gate.it.db.user", server.user());
        System.setProperty("gate.it.db.password", server.password().isEmpty() ? "-" : server.password());
    }
}
