package dev.gate.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real PgBouncer (Debian's package {@code pgbouncer}) in front of one database of the test server, in the pool
 * mode the test asks for, as its own process with its files in a temporary directory; closed with the test.
 * PgBouncer refuses to run as root: as root it runs as {@code nobody}.
 */
public final class PgBouncer implements AutoCloseable {

    private static final List<Path> BINARIES = List.of(Path.of("/usr/sbin/pgbouncer"), Path.of("/usr/bin/pgbouncer"));

    private final Process process;
    private final Path directory;
    private final int port;

    private PgBouncer(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    /** The installed binary, if any. */
    public static Optional<Path> binary() {
        return BINARIES.stream().filter(Files::isExecutable).findFirst();
    }

    /**
     * Starts PgBouncer with {@code poolMode} (session, transaction, statement) and {@code serverConnections} server
     * connections for {@code database} of {@code server}; returns once it accepts connections.
     */
    public static PgBouncer start(TestDatabase server, String database, String poolMode, int serverConnections) {
        Path binary = binary().orElseThrow(() -> new IllegalStateException("pgbouncer is not installed"));
        try {
            Path dir = Files.createTempDirectory("gate-pgbouncer-");
            // readable by the user it runs as (nobody, when the tests run as root)
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            int port = freePort();
            // the server logs in with the password of the auth file; clients are trusted (a loopback test)
            Files.writeString(dir.resolve("users.txt"), quoted(server.user()) + " " + quoted(server.password()) + "\n");
            Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
                    "[databases]",
                    database + " = host=" + server.host() + " port=" + server.port() + " dbname=" + database,
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + port,
                    "unix_socket_dir =",
                    "auth_type = trust",
                    "auth_file = " + dir.resolve("users.txt"),
                    "pool_mode = " + poolMode,
                    "default_pool_size = " + serverConnections,
                    "max_client_conn = 200",
                    // the JDBC driver sends it at login; PgBouncer refuses unknown startup parameters
                    "ignore_startup_parameters = extra_float_digits",
                    "logfile = " + dir.resolve("pgbouncer.log"),
                    ""));
            for (String f : List.of("users.txt", "pgbouncer.ini")) {
                Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
            }
            List<String> command = new ArrayList<>(List.of(binary.toString()));
            if ("root".equals(System.getProperty("user.name"))) {
                command.addAll(List.of("-u", "nobody"));
            }
            command.add(dir.resolve("pgbouncer.ini").toString());
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
            PgBouncer bouncer = new PgBouncer(p, dir, port);
            bouncer.awaitListening(Duration.ofSeconds(10));
            return bouncer;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start pgbouncer", e);
        }
    }

    public int port() {
        return port;
    }

    /** The JDBC URL of {@code database} through this PgBouncer. */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    private void awaitListening(Duration timeout) throws IOException {
        long until = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                String log = Files.readString(directory.resolve("stdout.log"));
                close();
                throw new IllegalStateException("pgbouncer exited at start: " + log);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        close();
        throw new IllegalStateException("pgbouncer did not listen on port " + port + " within " + timeout);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary directory
        }
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
