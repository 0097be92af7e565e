package dev.gate.it;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Over real HTTP: when the server loses its database, calls are paused (503), and the gate comes back by itself. */
class OutageIT extends GateDeployedAlone {

    @Test
    void withoutItsDatabaseTheApiSaysCallsArePausedAndResumesWhenItIsBack() throws Exception {
        Api.put("ops", "/limits/http-outage", "{\"calls\":5,\"windowSeconds\":1}");
        assertEquals(201, Api.post("web", "/limits/http-outage/calls", "{\"class\":\"MANUAL\"}").status());

        ItDatabase.proxy.cut();
        try {
            long t0 = System.nanoTime();
            Api.Answer paused = Api.post("web", "/limits/http-outage/calls", "{\"class\":\"MANUAL\"}");
            Duration answeredIn = Duration.ofNanos(System.nanoTime() - t0);
            assertEquals(503, paused.status(), paused.body());
            assertTrue(paused.isProblem(), paused.contentType());
            assertTrue(paused.raw().headers().firstValue("Retry-After").isPresent(), "Retry-After is sent");
            JsonObject problem = paused.json();
            assertEquals("Calls are paused", problem.getString("title"));
            assertTrue(problem.getString("detail").startsWith("calls are paused"), problem.getString("detail"));
            assertTrue(answeredIn.compareTo(Duration.ofSeconds(2)) < 0, "answered in " + answeredIn);
            Api.Answer status = Api.get("web", "/limits");
            assertEquals(503, status.status(), "the status is paused too, not a guess");
            saysNothingOfTheInside(paused);
            saysNothingOfTheInside(status);
        } finally {
            ItDatabase.proxy.restore();
        }
        long t1 = System.nanoTime();
        int status = 0;
        while (System.nanoTime() - t1 < Duration.ofSeconds(10).toNanos()) {
            status = Api.post("web", "/limits/http-outage/calls", "{\"class\":\"MANUAL\"}").status();
            if (status == 201) {
                break;
            }
            Thread.sleep(100);
        }
        assertEquals(201, status, "the gate resumed by itself");
        Duration resumedIn = Duration.ofNanos(System.nanoTime() - t1);
        System.out.println("outage over HTTP: resumed " + resumedIn.toMillis() + " ms after the database came back");
        assertTrue(resumedIn.compareTo(Duration.ofSeconds(2)) < 0, "resumed after " + resumedIn);
    }

    /** MicroProfile Health on the management port: what a load balancer or Kubernetes probes. */
    private static final URI READY = URI.create("http://127.0.0.1:9990/health/ready");
    private static final URI LIVE = URI.create("http://127.0.0.1:9990/health/live");

    @Test
    void readinessIsDownWhileTheDatabaseIsCutAndUpOnceItIsBackWhileLivenessStaysUp() throws Exception {
        assertEquals(200, Api.at(null, "GET", READY, null).status(), "ready with its database");

        ItDatabase.proxy.cut();
        try {
            Api.Answer down = until(READY, 503, Duration.ofSeconds(20));
            JsonObject check = gateCheck(down);
            assertEquals("DOWN", check.getString("status"), down.body());
            assertEquals("paused: the gate's database is unavailable",
                    check.getJsonObject("data").getString("calls"), down.body());
            assertEquals(200, Api.at(null, "GET", LIVE, null).status(), "a paused gate is alive");
        } finally {
            ItDatabase.proxy.restore();
        }
        Api.Answer up = until(READY, 200, Duration.ofSeconds(10));
        assertEquals("UP", gateCheck(up).getString("status"), up.body());
    }

    /** Polls {@code uri} until it answers {@code status}; fails after {@code within}. */
    private static Api.Answer until(URI uri, int status, Duration within) throws InterruptedException {
        long t0 = System.nanoTime();
        Api.Answer last = null;
        while (System.nanoTime() - t0 < within.toNanos()) {
            last = Api.at(null, "GET", uri, null);
            if (last.status() == status) {
                System.out.println(uri.getPath() + " answered " + status + " after "
                        + Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(uri + " did not answer " + status + " within " + within + "; last: "
                + (last == null ? "none" : last.status() + " " + last.body()));
    }

    private static JsonObject gateCheck(Api.Answer health) {
        return health.json().getJsonArray("checks").getValuesAs(JsonObject.class).stream()
                .filter(c -> c.getString("name").equals("gate-database")).findFirst()
                .orElseThrow(() -> new AssertionError("no gate-database check: " + health.body()));
    }

    @Test
    void aRightPasswordThatCannotBeCheckedIsPausedNotRefusedAndAWrongOneIsRefusedOnceItCanBe() throws Exception {
        assertEquals(201, Api.put("ops", "/accounts/it-newcomer",
                "{\"password\":\"newcomer-secret\",\"roles\":[\"caller\"]}").status());
        Api.put("ops", "/limits/http-outage-auth", "{\"calls\":5,\"windowSeconds\":1}");

        ItDatabase.proxy.cut();
        try {
            // never used before, so nothing remembered: its credentials cannot be checked without the database
            Api.Answer paused = Api.post("it-newcomer:newcomer-secret", "/limits/http-outage-auth/calls",
                    "{\"class\":\"MANUAL\"}");
            assertEquals(503, paused.status(), paused.body());
            assertTrue(paused.isProblem(), paused.contentType());
            assertTrue(paused.raw().headers().firstValue("Retry-After").isPresent(), "Retry-After is sent");
            assertEquals("Calls are paused", paused.json().getString("title"));
            assertTrue(paused.json().getString("detail").startsWith("calls are paused"),
                    paused.json().getString("detail"));
            saysNothingOfTheInside(paused);
        } finally {
            ItDatabase.proxy.restore();
        }
        // once the database answers again, a wrong password is what it is
        Api.Answer wrong = onceResumed(() -> Api.get("it-newcomer:not-the-secret", "/limits"));
        assertEquals(401, wrong.status(), wrong.body());
        assertTrue(wrong.isProblem(), wrong.contentType());
        Api.Answer right = onceResumed(() -> Api.post("it-newcomer:newcomer-secret", "/limits/http-outage-auth/calls",
                "{\"class\":\"MANUAL\"}"));
        assertEquals(201, right.status(), right.body());
    }

    /** No SQL, exception class, driver text or host in an answer: those are for the log. */
    static void saysNothingOfTheInside(Api.Answer answer) {
        for (String inside : List.of("SQL", "Exception", "exception", "jdbc", "PSQL", "postgres", "Connection",
                "refused", "127.0.0.1", "localhost", "org.", "java.", "at dev.")) {
            assertFalse(answer.body().contains(inside), "'" + inside + "' in " + answer.body());
        }
    }

    /** The first answer that is not "paused", asked again for up to 10 s while the gate resumes. */
    private static Api.Answer onceResumed(java.util.function.Supplier<Api.Answer> ask) throws InterruptedException {
        long t0 = System.nanoTime();
        Api.Answer answer = ask.get();
        while (answer.status() == 503 && System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos()) {
            Thread.sleep(100);
            answer = ask.get();
        }
        return answer;
    }
}
