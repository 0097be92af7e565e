package dev.gate.dev;

import org.wildfly.core.launcher.Launcher;
import org.wildfly.core.launcher.StandaloneCommandBuilder;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The run command's launcher ({@code mvn -Prun}, through exec:java in gate-ear): starts an embedded PostgreSQL unless
 * {@code GATE_DB_URL} is set, starts the provisioned WildFly with the EAR in its deployments folder, prints the URLs
 * once the gate answers, and on Ctrl-C stops the server and then the database it started.
 *
 * <p>Arguments: the server directory, the EAR, the embedded database's port.
 */
public final class DevRun {

    static final String DEMO_LIMITS = "demo=60/60s,demo-fast=10/1s";
    static final String BASE = "http://localhost:8080/gate";

    private final Path server;
    private final Path ear;
    private final int dbPort;
    private TestDatabase database;
    private Process wildfly;
    private boolean stopped;

    private DevRun(Path server, Path ear, int dbPort) {
        this.server = server;
        this.ear = ear;
        this.dbPort = dbPort;
    }

    public static void main(String[] args) throws Exception {
        DevRun run = new DevRun(Path.of(args[0]), Path.of(args[1]), Integer.parseInt(args[2]));
        Runtime.getRuntime().addShutdownHook(new Thread(run::stop, "gate-run-stop"));
        run.start();
        int exit = run.wildfly.waitFor();
        run.stop();
        if (exit != 0 && exit != 130 && exit != 143) {
            throw new IllegalStateException("WildFly exited with status " + exit);
        }
    }

    private void start() throws IOException, InterruptedException {
        Map<String, String> env = new LinkedHashMap<>();
        String url = System.getenv("GATE_DB_URL");
        if (url == null || url.isBlank()) {
            database = TestDatabase.startEmbeddedUntilStopped(dbPort);
            env.put("GATE_DB_URL", database.url("postgres"));
            env.put("GATE_DB_USER", database.user());
            env.put("GATE_DB_PASSWORD", "postgres");
            say("GATE_DB_URL is not set: started an embedded PostgreSQL at " + database.url("postgres")
                    + " (user postgres; its data is thrown away when the gate stops)");
        } else {
            say("using the database in GATE_DB_URL: " + url);
        }
        String limits = System.getenv("GATE_LIMITS");
        if (limits == null || limits.isBlank()) {
            env.put("GATE_LIMITS", DEMO_LIMITS);
            say("GATE_LIMITS is not set: declaring the demo limits " + DEMO_LIMITS);
        }
        if (System.getenv("GATE_DEV_MODE") == null) {
            env.put("GATE_DEV_MODE", "true");
            say("development mode: the accounts web, worker, batch (caller) and ops (operator, viewer) are created,"
                    + " each with its name as password (GATE_DEV_MODE=false to run without them)");
        }
        deploy();
        wildfly = Launcher.of(StandaloneCommandBuilder.of(server).addJavaOptions("-Xms256m", "-Xmx1g"))
                .inherit()
                .addEnvironmentVariables(env)
                .launch();
        if (awaitGate()) {
            say("the gate is running.\n    status page: " + BASE + "/   (ops/ops)\n    API:         " + BASE
                    + "/api/v1/limits   (curl -u web:web " + BASE + "/api/v1/limits)\n    Ctrl-C stops the server"
                    + (database == null ? "" : " and the database"));
        } else if (wildfly.isAlive()) {
            say("the gate did not answer at " + BASE + "/api/v1/limits within 5 minutes: see the server log above");
        }
    }

    /** The EAR goes into the deployments folder (the provisioning step leaves it empty), replacing old markers. */
    private void deploy() throws IOException {
        Path deployments = server.resolve("standalone/deployments");
        try (DirectoryStream<Path> old = Files.newDirectoryStream(deployments, "gate.ear*")) {
            for (Path p : old) {
                Files.delete(p);
            }
        }
        Files.copy(ear, deployments.resolve("gate.ear"), StandardCopyOption.REPLACE_EXISTING);
    }

    private boolean awaitGate() throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        // any answer from the API (401 included) means the gate is deployed
        HttpRequest ping = HttpRequest.newBuilder(URI.create(BASE + "/api/v1/limits"))
                .timeout(Duration.ofSeconds(5)).build();
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < until && wildfly.isAlive()) {
            try {
                int status = http.send(ping, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 200 || status == 401) {
                    return true;
                }
            } catch (IOException notYet) {
                // the server is still starting
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** Server first, so that it closes its connections before the database goes away. Runs once. */
    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (wildfly != null && wildfly.isAlive()) {
            wildfly.destroy();
            try {
                if (!wildfly.waitFor(30, TimeUnit.SECONDS)) {
                    wildfly.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (database != null) {
            database.stop();
            say("stopped the embedded PostgreSQL");
        }
    }

    private static void say(String line) {
        System.out.println("[gate] " + line);
    }
}
