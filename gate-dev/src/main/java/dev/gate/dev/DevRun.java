package dev.gate.dev;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run command's launcher ({@code mvn -Prun}, through exec:java in gate-ear): starts an embedded PostgreSQL unless
 * {@code GATE_DB_URL} is set, starts the provisioned WildFly with the EAR in its deployments folder, prints the URLs
 * once the gate answers, and on Ctrl-C stops the server and then the database it started.
 *
 * <p>Arguments: the server directory, the EAR, the embedded database's port; with {@code -Pdemo} also "true" and the
 * demo vendor's and web app's WARs: they are deployed beside the gate and the {@link Demo} runs against them.
 */
public final class DevRun {

    static final String DEMO_LIMITS = "demo=60/60s,demo-fast=10/1s";
    static final String BASE = GateServer.BASE;

    private final Path server;
    private final Path ear;
    private final int dbPort;
    private final List<Path> demoWars;
    private Demo demo;
    private TestDatabase database;
    private GateServer wildfly;
    private boolean stopped;

    private DevRun(Path server, Path ear, int dbPort, List<Path> demoWars) {
        this.server = server;
        this.ear = ear;
        this.dbPort = dbPort;
        this.demoWars = demoWars;
    }

    public static void main(String[] args) throws Exception {
        List<Path> demoWars = args.length >= 6 && Boolean.parseBoolean(args[3])
                ? List.of(Path.of(args[4]), Path.of(args[5])) : List.of();
        DevRun run = new DevRun(Path.of(args[0]), Path.of(args[1]), Integer.parseInt(args[2]), demoWars);
        Runtime.getRuntime().addShutdownHook(new Thread(run::stop, "gate-run-stop"));
        run.start();
        int exit = run.wildfly.process().waitFor();
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
            String declared = demoWars.isEmpty() ? DEMO_LIMITS : DEMO_LIMITS + "," + Demo.LIMIT_DECLARATION;
            env.put("GATE_LIMITS", declared);
            say("GATE_LIMITS is not set: declaring the demo limits " + declared);
        }
        // development accounts only in a database of the run's own, thrown away at the end: never written into a
        // real one unless asked for (GATE_DEV_MODE=true)
        if (System.getenv("GATE_DEV_MODE") == null && database != null) {
            env.put("GATE_DEV_MODE", "true");
            say("development mode: the accounts web, worker, batch (caller) and ops (operator, viewer) are created,"
                    + " each with its name as password (GATE_DEV_MODE=false to run without them)");
        } else if (System.getenv("GATE_DEV_MODE") == null) {
            say("GATE_DB_URL is set, so no development accounts: GATE_OPERATOR=name:password creates the first"
                    + " operator (GATE_DEV_MODE=true would create web/web, ops/ops ... in that database)");
        }
        List<Path> deployments = new ArrayList<>(List.of(ear));
        deployments.addAll(demoWars);
        wildfly = GateServer.start(server, deployments, env, true);
        if (wildfly.awaitGate(Duration.ofMinutes(5))) {
            boolean dev = "true".equals(env.getOrDefault("GATE_DEV_MODE", System.getenv("GATE_DEV_MODE")));
            say("the gate is running.\n    status page: " + BASE + "/   (sign in as " + (dev ? "ops/ops" : "your operator")
                    + ")\n    API:         " + BASE + "/api/v1/limits   (curl -u " + (dev ? "web:web" : "name:password")
                    + " " + BASE + "/api/v1/limits)\n"
                    + "    metrics:     http://localhost:9990/prometheus   health: http://localhost:9990/health/ready\n"
                    + "    Ctrl-C stops the server" + (database == null ? "" : " and the database"));
            if (!demoWars.isEmpty()) {
                demo = Demo.start("http://localhost:8080");
            }
        } else if (wildfly.process().isAlive()) {
            say("the gate did not answer at " + BASE + "/api/v1/limits within 5 minutes: see the server log above");
        }
    }

    /** Server first, so that it closes its connections before the database goes away. Runs once. */
    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (demo != null) {
            demo.close();
        }
        if (wildfly != null) {
            wildfly.close();
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
