package dev.gate.bench;

import dev.gate.dev.GateDatabase;
import dev.gate.dev.GateServer;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;

/**
 * The gate over HTTP, as a program outside the server calls it: the provisioned WildFly with the EAR (its own
 * process, on a fresh database), then scenario 1 over HTTP and the long-poll scale figure.
 *
 * <p>Arguments: the server directory, the EAR, seconds per cell (default 5).
 */
public final class HttpSide {

    private HttpSide() {
    }

    public static void main(String[] args) throws Exception {
        Path server = Path.of(args[0]);
        Path ear = Path.of(args[1]);
        int seconds = args.length > 2 && !args[2].isBlank() ? Integer.parseInt(args[2]) : 5;
        GateDatabase db = GateDatabase.fresh("gate_http_side");
        // one account holds the 1,000 long-polls of LongPolls: more than the default bound (500) allows it
        Map<String, String> env = Map.of("GATE_DB_URL", db.server().url(db.name()), "GATE_DB_USER",
                db.server().user(), "GATE_DB_PASSWORD", password(db), "GATE_DEV_MODE", "true",
                "GATE_LONG_POLLS_PER_ACCOUNT", "2000");
        try (GateServer gate = GateServer.start(server, ear, env, false)) {
            if (!gate.awaitGate(Duration.ofMinutes(5))) {
                throw new IllegalStateException("the gate did not answer within 5 minutes: see "
                        + server.resolve("standalone/log/server.log"));
            }
            System.out.printf("%nscenario 1 over HTTP: the gate in its own server (WildFly, the EAR), a limit never "
                    + "reached, burst %d, %d s per cell after a warm-up (%s, %d cores; client, server and PostgreSQL "
                    + "on one host)%n",
                    Integer.getInteger("bench.open.burst", 1_000), seconds,
                    LocalDate.now(), Runtime.getRuntime().availableProcessors());
            System.out.println("| callers | grants | p50 | p99 | errors | lost | left waiting | host cpu |");
            System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
            // the server's JIT, pools and plans warm at 16 callers first (-Dbench.warmup.seconds, default 30)
            HttpPath.run(java.net.URI.create(GateServer.BASE + "/api/v1/"), "web", "web", "ops:ops", 16,
                    Integer.getInteger("bench.warmup.seconds", 30));
            for (int callers : new int[] {1, 4, 16}) {
                System.out.println(HttpPath.run(java.net.URI.create(GateServer.BASE + "/api/v1/"), "web", "web",
                        "ops:ops", callers, seconds));
            }
            // the same limit declared again without a burst: every grant goes through the line (joins, the grant
            // pass, the delivery of the grant to the held request)
            System.out.println(HttpPath.run(java.net.URI.create(GateServer.BASE + "/api/v1/"), "web", "web",
                    "ops:ops", 16, seconds, 1_000_000) + " <- 16 callers, 1,000,000/s without burst: the line");
            System.out.println("(targets: p50 <= 2 ms at 1 caller, >= 1,000 grants/s at 16 callers with burst (the free "
                    + "line), >= 500/s without (the line), no error, nothing lost)");

            int polls = 1_000;
            LongPolls.Figures f = LongPolls.run(GateServer.BASE, "web", "web", "ops:ops", gate.process().pid(),
                    polls);
            System.out.printf("%nscale: %,d long-polls held at once by one server (%s, %d cores)%n", polls,
                    LocalDate.now(), Runtime.getRuntime().availableProcessors());
            System.out.println("| figure | measured | target |");
            System.out.println("| --- | --- | --- |");
            System.out.printf("| server threads, idle / while holding them | %d / %d (+%d) | fewer than 100 more |%n",
                    f.idleThreads(), f.peakThreads(), f.peakThreads() - f.idleThreads());
            System.out.printf("| answer after its grant | %s | within 50 ms |%n", f.answerAfterGrant().summary());
            System.out.printf("| answered GRANTED / errors | %d of %d / %d | all, none |%n", f.answeredGranted(),
                    polls, f.errors());
        } finally {
            db.server().stop();
        }
    }

    /** The server refuses an empty password (the embedded PostgreSQL's user has none, and trusts any). */
    static String password(GateDatabase db) {
        return db.server().password().isEmpty() ? "postgres" : db.server().password();
    }
}
