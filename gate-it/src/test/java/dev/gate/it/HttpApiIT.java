package dev.gate.it;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP API over real HTTP against the deployed EAR, as the web service and the background worker of the
 * motivating setup use it. The server runs in development mode: accounts web, worker, batch (caller), ops.
 */
class HttpApiIT extends GateDeployedAlone {

    @Test
    void aFullLineRefusesAJoinWith429LineFullAndSaysWhenAPlaceMayFree() throws Exception {
        Api.Answer declared = Api.put("ops", "/limits/http-full", "{\"calls\":1,\"windowSeconds\":60,"
                + "\"maxWaiting\":2,\"maxWaitingPerProgram\":1}");
        assertEquals(201, declared.status(), declared.body());
        try {
            fillAndRefuse();
        } finally { // the calls left waiting would be drained by another test's drain of the same programs
            Api.post("ops", "/programs/worker/drain?limit=http-full", null);
            Api.post("ops", "/programs/web/drain?limit=http-full", null);
        }
    }

    private static void fillAndRefuse() {
        assertEquals(201, Api.post("web", "/limits/http-full/calls", "{\"class\":\"SCHEDULED\"}").status()); // the slot
        assertEquals(201, Api.post("worker", "/limits/http-full/calls", "{\"class\":\"BACKFILL\"}").status());
        Api.Answer mine = Api.post("worker", "/limits/http-full/calls", "{\"class\":\"BACKFILL\"}");
        assertEquals(429, mine.status(), "the program's share is full: " + mine.body());
        assertTrue(mine.isProblem() && mine.json().getString("type").endsWith(":line-full"), mine.body());
        assertTrue(mine.json().getString("detail").contains("maxWaitingPerProgram"), mine.body());
        long ms = mine.json().getJsonNumber("retryAfterMs").longValue();
        assertTrue(ms > 50_000 && ms <= 60_200, "a place may free at the next slot (a minute and its margin): " + ms);
        assertEquals(String.valueOf((ms + 999) / 1000), mine.raw().headers().firstValue("Retry-After").orElse(""));
        assertEquals(201, Api.post("web", "/limits/http-full/calls", "{\"class\":\"BACKFILL\"}").status(),
                "another program still has room");
        // the line's own cap: a third program, in the highest class, finds the line full
        Api.put("ops", "/accounts/it-third", "{\"password\":\"third-secret\",\"roles\":[\"caller\"]}");
        Api.Answer third = Api.post("it-third:third-secret", "/limits/http-full/calls",
                "{\"class\":\"INTERACTIVE\"}");
        assertEquals(429, third.status(), third.body());
        assertTrue(third.json().getString("detail").contains("its line holds maxWaiting calls"), third.body());
        JsonObject limit = Api.get("ops", "/limits/http-full").json();
        assertEquals(2, limit.getInt("maxWaiting"));
        assertEquals(1, limit.getInt("maxWaitingPerProgram"));
        assertEquals(2, limit.getJsonObject("lineFull").getInt("refused"), limit.toString());
        assertFalse(limit.getJsonObject("lineFull").isNull("lastAt"));
        assertEquals(2, limit.getJsonObject("waiting").getInt("BACKFILL"), "nothing of the refused joins waits");
        assertEquals(0, limit.getJsonObject("waiting").getInt("INTERACTIVE"));
    }

    @Test
    void anAccountsLongPollsPastItsBoundAreAnsweredAtOnce() throws Exception {
        // the tests' server holds at most 20 answers per account (gate.long-polls.per-account, arquillian.xml)
        assertEquals(201, Api.put("ops", "/accounts/it-poller", "{\"password\":\"poller-secret\","
                + "\"roles\":[\"caller\"]}").status());
        String poller = "it-poller:poller-secret";
        Api.put("ops", "/limits/http-polls", "{\"calls\":1,\"windowSeconds\":60}");
        Api.post(poller, "/limits/http-polls/calls", "{\"class\":\"SCHEDULED\"}"); // takes the slot
        long id = Api.post(poller, "/limits/http-polls/calls", "{\"class\":\"BACKFILL\",\"leaseSeconds\":300}")
                .json().getJsonNumber("id").longValue();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(25);
        try {
            List<java.util.concurrent.Future<Api.Answer>> polls = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                polls.add(pool.submit(() -> Api.get(poller, "/calls/" + id + "?waitSeconds=30")));
            }
            // five of them are past the bound: answered at once, the call as it is
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (polls.stream().filter(java.util.concurrent.Future::isDone).count() < 5) {
                assertTrue(System.nanoTime() < until, "the polls past the bound were not answered at once");
                Thread.sleep(20);
            }
            Thread.sleep(500); // the rest stay held (a held poll answers only when the call changes)
            List<java.util.concurrent.Future<Api.Answer>> answered = polls.stream()
                    .filter(java.util.concurrent.Future::isDone).toList();
            assertEquals(5, answered.size(), "twenty held, five answered at once");
            for (var f : answered) {
                assertEquals("WAITING", f.get().json().getString("state"));
            }
            assertEquals(204, Api.delete(poller, "/calls/" + id).status());
            for (var f : polls) {
                String state = f.get(15, java.util.concurrent.TimeUnit.SECONDS).json().getString("state");
                assertTrue(state.equals("CANCELLED") || state.equals("WAITING"), state);
            }
            // the holds were given back: a new poll is held again
            long other = Api.post(poller, "/limits/http-polls/calls", "{\"class\":\"BACKFILL\"}").json()
                    .getJsonNumber("id").longValue();
            long t0 = System.nanoTime();
            Api.get(poller, "/calls/" + other + "?waitSeconds=1");
            assertTrue(System.nanoTime() - t0 > Duration.ofMillis(900).toNanos(), "held for its second");
            Api.delete(poller, "/calls/" + other);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void withoutCredentials401WithTheWrongRole403BothAsProblems() {
        Api.Answer anonymous = Api.get(null, "/limits");
        assertEquals(401, anonymous.status());
        assertTrue(anonymous.isProblem(), anonymous.contentType());
        assertTrue(anonymous.raw().headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"));
        assertEquals(401, Api.get("web:wrong-password", "/limits").status());
        Api.Answer caller = Api.put("web", "/limits/http-forbidden", "{\"calls\":1,\"windowSeconds\":1}");
        assertEquals(403, caller.status());
        assertTrue(caller.isProblem());
        assertEquals(403, Api.post("ops", "/limits/it-declared/calls", "{\"class\":\"MANUAL\"}").status(),
                "an operator is not a caller");
        assertEquals(404, Api.get("ops", "/limits/http-forbidden").status(), "the forbidden PUT created nothing");
    }

    @Test
    void anOperatorCreatesAndChangesALimitAndEveryoneSeesIt() {
        Api.Answer created = Api.put("ops", "/limits/http-vendor", "{\"calls\":600,\"windowSeconds\":60}");
        assertEquals(201, created.status(), created.body());
        assertTrue(created.raw().headers().firstValue("Location").orElse("").endsWith("/gate/api/v1/limits/http-vendor"));
        Api.Answer changed = Api.put("ops", "/limits/http-vendor", "{\"calls\":300,\"windowSeconds\":60}");
        assertEquals(200, changed.status());
        for (String who : List.of("web", "ops")) {
            JsonObject limit = Api.get(who, "/limits/http-vendor").json();
            assertEquals(300, limit.getInt("calls"));
            assertEquals(60, limit.getInt("windowSeconds"));
            assertEquals(0, limit.getInt("usedInWindow"));
            assertTrue(limit.isNull("pausedUntil"));
            assertEquals(0, limit.getJsonObject("waiting").getInt("INTERACTIVE"));
            assertTrue(limit.getJsonObject("oldestWaitMs").isNull("BACKFILL"));
        }
        JsonArray all = (JsonArray) Api.get("web", "/limits").structure();
        assertTrue(all.stream().anyMatch(v -> v.asJsonObject().getString("name").equals("http-vendor")));
    }

    @Test
    void aCallsLifeOverHttp() {
        Api.put("ops", "/limits/http-life", "{\"calls\":1,\"windowSeconds\":60}");
        Api.Answer joined = Api.post("web", "/limits/http-life/calls", "{\"class\":\"SCHEDULED\",\"leaseSeconds\":20}");
        assertEquals(201, joined.status(), joined.body());
        JsonObject call = joined.json();
        long id = call.getJsonNumber("id").longValue();
        assertTrue(joined.raw().headers().firstValue("Location").orElse("").endsWith("/gate/api/v1/calls/" + id));
        assertEquals("http-life", call.getString("limit"));
        assertEquals("SCHEDULED", call.getString("class"));
        assertEquals("web", call.getString("program"));
        assertEquals("GRANTED", call.getString("state"), "an empty line with a due slot grants at once");
        Instant.parse(call.getString("enqueuedAt"));
        Instant.parse(call.getString("grantedAt"));
        Instant.parse(call.getString("leaseExpiresAt"));

        assertEquals(200, Api.get("web", "/calls/" + id).status());
        assertEquals(404, Api.get("worker", "/calls/" + id).status(), "another program's call is not there for it");
        assertEquals(404, Api.post("worker", "/calls/" + id + "/outcome", "{\"status\":200}").status());
        assertEquals(204, Api.post("web", "/calls/" + id + "/outcome", "{\"status\":200}").status());
        assertEquals("DONE", Api.get("web", "/calls/" + id).json().getString("state"));

        JsonObject waiting = Api.post("web", "/limits/http-life/calls", "{\"class\":\"BACKFILL\"}").json();
        long waitingId = waiting.getJsonNumber("id").longValue();
        assertEquals("WAITING", waiting.getString("state"));
        assertTrue(waiting.isNull("grantedAt"));
        assertEquals(0, waiting.getInt("position"));
        assertTrue(Instant.parse(waiting.getString("estimatedGrantAt")).isAfter(Instant.now().plusSeconds(30)),
                "the next slot of 1 per minute is about a minute away: " + waiting.getString("estimatedGrantAt"));
        Api.Answer renewed = Api.post("web", "/calls/" + waitingId + "/lease", null);
        assertEquals(200, renewed.status(), renewed.body());
        assertTrue(!Instant.parse(renewed.json().getString("leaseExpiresAt"))
                .isBefore(Instant.parse(waiting.getString("leaseExpiresAt"))));
        JsonObject heartbeat = Api.post("web", "/programs/self/lease", null).json();
        assertTrue(heartbeat.getInt("renewed") >= 1, heartbeat.toString());
        assertEquals(204, Api.delete("web", "/calls/" + waitingId).status());
        assertEquals("CANCELLED", Api.get("web", "/calls/" + waitingId).json().getString("state"));
        Api.Answer again = Api.delete("web", "/calls/" + waitingId);
        assertEquals(409, again.status());
        assertTrue(again.isProblem());
    }

    @Test
    void aLongPollIsAnsweredPromptlyWhenItsCallIsGranted() {
        Api.put("ops", "/limits/http-poll", "{\"calls\":1,\"windowSeconds\":3}");
        Api.post("web", "/limits/http-poll/calls", "{\"class\":\"INTERACTIVE\"}"); // takes the slot
        long t0 = System.nanoTime();
        Api.Answer held = Api.post("web", "/limits/http-poll/calls?waitSeconds=20", "{\"class\":\"INTERACTIVE\"}");
        Instant answered = Instant.now();
        assertEquals(201, held.status(), held.body());
        JsonObject call = held.json();
        assertEquals("GRANTED", call.getString("state"), "held until granted");
        Duration lag = Duration.between(Instant.parse(call.getString("grantedAt")), answered);
        assertTrue(lag.compareTo(Duration.ofSeconds(1)) < 0, "answered " + lag + " after the grant");
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());

        JsonObject next = Api.post("web", "/limits/http-poll/calls", "{\"class\":\"INTERACTIVE\"}").json();
        assertEquals("WAITING", next.getString("state"));
        JsonObject polled = Api.get("web", "/calls/" + next.getJsonNumber("id").longValue() + "?waitSeconds=20").json();
        assertEquals("GRANTED", polled.getString("state"));

        JsonObject last = Api.post("web", "/limits/http-poll/calls", "{\"class\":\"INTERACTIVE\"}").json();
        JsonObject timedOut = Api.get("web", "/calls/" + last.getJsonNumber("id").longValue() + "?waitSeconds=1").json();
        assertEquals("WAITING", timedOut.getString("state"), "after W seconds the answer says it still waits");
    }

    @Test
    void theWorkerFloodsBackfillAndWebsInteractiveCallIsGrantedAtTheNextSlot() {
        Api.put("ops", "/limits/http-shared", "{\"calls\":2,\"windowSeconds\":1}");
        List<Long> backfill = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            backfill.add(Api.post("worker", "/limits/http-shared/calls", "{\"class\":\"BACKFILL\"}").json()
                    .getJsonNumber("id").longValue());
        }
        JsonObject interactive = Api.post("web", "/limits/http-shared/calls?waitSeconds=10",
                "{\"class\":\"INTERACTIVE\"}").json();
        assertEquals("GRANTED", interactive.getString("state"));
        Instant joined = Instant.parse(interactive.getString("enqueuedAt"));
        Instant granted = Instant.parse(interactive.getString("grantedAt"));
        int waitingWhenWebJoined = 0;
        int grantedInBetween = 0;
        for (long id : backfill) {
            JsonObject c = Api.get("worker", "/calls/" + id).json();
            Instant g = c.isNull("grantedAt") ? null : Instant.parse(c.getString("grantedAt"));
            if (g == null || !g.isBefore(joined)) {
                waitingWhenWebJoined++;
                if (g != null && g.isBefore(granted)) {
                    grantedInBetween++;
                }
            }
        }
        assertTrue(waitingWhenWebJoined >= 2, "the worker's flood was queued: " + waitingWhenWebJoined);
        assertTrue(grantedInBetween <= 1, grantedInBetween + " of the " + waitingWhenWebJoined
                + " waiting BACKFILL calls went between web's join and its grant; at most the slot in progress may");
        for (long id : backfill) {
            Api.delete("worker", "/calls/" + id);
        }
    }

    @Test
    void anOperatorRemovesALimitOnlyWhenNoCallIsLive() {
        Api.put("ops", "/limits/http-retired", "{\"calls\":1,\"windowSeconds\":60}");
        Api.Answer granted = Api.post("web", "/limits/http-retired/calls", "{\"class\":\"SCHEDULED\"}");
        assertEquals(201, granted.status(), granted.body());
        Api.Answer waiting = Api.post("web", "/limits/http-retired/calls", "{\"class\":\"SCHEDULED\"}");
        long grantedId = granted.json().getJsonNumber("id").longValue();
        long waitingId = waiting.json().getJsonNumber("id").longValue();

        assertEquals(403, Api.delete("web", "/limits/http-retired").status(), "only an operator removes limits");
        Api.Answer busy = Api.delete("ops", "/limits/http-retired");
        assertEquals(409, busy.status(), busy.body());
        assertTrue(busy.isProblem(), busy.contentType());
        assertEquals(2, busy.json().getInt("liveCalls"), "one granted and one waiting call: " + busy.body());
        assertEquals(200, Api.get("web", "/limits/http-retired").status(), "the limit is still there");

        assertEquals(204, Api.delete("web", "/calls/" + waitingId).status());
        assertEquals(204, Api.post("web", "/calls/" + grantedId + "/outcome", "{\"status\":200}").status());
        assertEquals(204, Api.delete("ops", "/limits/http-retired").status(), "a limit with only history goes");
        assertEquals(404, Api.get("web", "/limits/http-retired").status());
        assertEquals(404, Api.delete("ops", "/limits/http-retired").status());
        assertEquals(404, Api.get("web", "/calls/" + grantedId).status(), "its history went with it");
    }

    @Test
    void anOperatorManagesAccountsAndTheContractIsPublished() {
        assertEquals(201, Api.put("ops", "/accounts/it-service",
                "{\"password\":\"s3cret-enough\",\"roles\":[\"caller\"]}").status());
        Api.put("ops", "/limits/http-accounts", "{\"calls\":10,\"windowSeconds\":1}");
        JsonObject call = Api.post("it-service:s3cret-enough", "/limits/http-accounts/calls",
                "{\"class\":\"MANUAL\"}").json();
        assertEquals("it-service", call.getString("program"), "a caller's name is the program of its calls");
        assertEquals(401, Api.get("it-service:wrong", "/limits").status());
        assertEquals(204, Api.delete("ops", "/accounts/it-service").status());
        assertEquals(401, Api.get("it-service:s3cret-enough", "/limits").status(), "a deleted account is out");

        Api.Answer openapi = Api.at(null, "GET", java.net.URI.create("http://127.0.0.1:8080/openapi"), null);
        assertEquals(200, openapi.status());
        assertTrue(openapi.body().contains("/gate/api/v1/limits/{name}/calls"), "the contract lists the API");
    }

    @Test
    void aLimitsOptionsAndARateLimitOutcomeThatPausesItForEveryone() {
        Api.Answer put = Api.put("ops", "/limits/http-signals", "{\"calls\":10,\"windowSeconds\":1,"
                + "\"minIntervalMs\":50,\"rules\":[{\"calls\":100,\"windowSeconds\":60}],"
                + "\"retryFloorSeconds\":2,\"coolDownLadderSeconds\":[2,5,15,30,60,120,300,900],"
                + "\"stepDownAfter\":5}");
        assertEquals(201, put.status(), put.body());
        assertTrue(put.json().isNull("pausedUntil"));
        JsonObject call = Api.post("web", "/limits/http-signals/calls", "{\"class\":\"INTERACTIVE\"}").json();
        long id = call.getJsonNumber("id").longValue();
        assertEquals(204, Api.post("web", "/calls/" + id + "/outcome",
                "{\"status\":429,\"retryAfterSeconds\":5}").status());
        JsonObject limit = Api.get("worker", "/limits/http-signals").json();
        assertTrue(!limit.isNull("pausedUntil"), "the pause shows in the status: " + limit);
        Duration left = Duration.between(Instant.now(), Instant.parse(limit.getString("pausedUntil")));
        assertTrue(left.compareTo(Duration.ofSeconds(3)) > 0 && left.compareTo(Duration.ofSeconds(6)) < 0,
                "paused for about the 5 s the vendor asked: " + left);
        JsonObject other = Api.post("worker", "/limits/http-signals/calls?waitSeconds=1",
                "{\"class\":\"INTERACTIVE\"}").json();
        assertEquals("WAITING", other.getString("state"), "no class of any program is granted while paused");
        Api.delete("worker", "/calls/" + other.getJsonNumber("id").longValue());
    }

    @Test
    void aLimitOnTheVendorsCalendarIsDeclaredCountedPerBlockAndShowsWhenItResets() {
        Api.Answer put = Api.put("ops", "/limits/http-daily", "{\"calls\":10000,\"windowSeconds\":86400,"
                + "\"aligned\":{\"zone\":\"America/Los_Angeles\",\"at\":\"00:00\"},"
                + "\"rules\":[{\"calls\":5,\"windowSeconds\":10,\"aligned\":{\"zone\":\"UTC\"}}]}");
        assertEquals(201, put.status(), put.body());
        Api.post("web", "/limits/http-daily/calls?waitSeconds=10", "{\"class\":\"INTERACTIVE\"}");
        JsonObject limit = Api.get("worker", "/limits/http-daily").json();
        assertEquals("America/Los_Angeles", limit.getJsonObject("aligned").getString("zone"), limit.toString());
        assertEquals("00:00", limit.getJsonObject("aligned").getString("at"));
        Instant midnight = java.time.ZonedDateTime.now(java.time.ZoneId.of("America/Los_Angeles")).toLocalDate()
                .plusDays(1).atStartOfDay(java.time.ZoneId.of("America/Los_Angeles")).toInstant();
        assertEquals(midnight, Instant.parse(limit.getString("resetsAt")), "the next midnight in Los Angeles");
        assertEquals(1, limit.getInt("usedInWindow"));
        JsonObject rule = limit.getJsonArray("rules").getJsonObject(0);
        assertEquals("UTC", rule.getJsonObject("aligned").getString("zone"));
        assertEquals("00:00", rule.getJsonObject("aligned").getString("at"), "the reset time defaults to midnight");
        Duration toReset = Duration.between(Instant.now(), Instant.parse(rule.getString("resetsAt")));
        assertTrue(toReset.compareTo(Duration.ofSeconds(11)) < 0, "a block of 10 s ends within 10 s: " + toReset);
        for (String[] bad : new String[][]{
                {"{\"calls\":5,\"windowSeconds\":60,\"aligned\":{\"zone\":\"Mars/Olympus\"}}", "aligned.zone"},
                {"{\"calls\":5,\"windowSeconds\":60,\"aligned\":{\"zone\":\"UTC\",\"at\":\"25:00\"}}", "aligned.at"},
                {"{\"calls\":5,\"windowSeconds\":60,\"aligned\":\"UTC\"}", "aligned"},
                {"{\"calls\":5,\"windowSeconds\":7,\"aligned\":{\"zone\":\"UTC\"}}", "aligned window"},
                {"{\"calls\":5,\"windowSeconds\":60,\"rules\":[{\"calls\":9,\"windowSeconds\":60,"
                        + "\"aligned\":{\"zone\":\"UTC\",\"when\":1}}]}", "rules[0].aligned.when"}}) {
            Api.Answer refused = Api.put("ops", "/limits/http-daily-bad", bad[0]);
            assertEquals(400, refused.status(), bad[0] + ": " + refused.body());
            assertTrue(refused.isProblem() && refused.json().getString("detail").contains(bad[1]),
                    bad[0] + ": " + refused.body());
        }
        assertEquals(404, Api.get("worker", "/limits/http-daily-bad").status(), "nothing was declared");
    }

    @Test
    void aDailyQuotaOnAFixedOffsetResetsAtThatOffsetsMidnightOnEveryPath() {
        // the day starts about an hour from now at +05:00 (a reset time chosen so): the status and a try's
        // Retry-After must both name that instant (PostgreSQL alone would read '+05:00' as five hours west)
        java.time.ZoneOffset plus5 = java.time.ZoneOffset.ofHours(5);
        java.time.LocalTime at = java.time.LocalTime.now(plus5).plusMinutes(65).withSecond(0).withNano(0);
        Api.Answer put = Api.put("ops", "/limits/http-offset", "{\"calls\":2,\"windowSeconds\":86400,"
                + "\"aligned\":{\"zone\":\"UTC+05:00\",\"at\":\"" + at + "\"}}");
        assertEquals(201, put.status(), put.body());
        Api.Answer first = Api.post("web", "/limits/http-offset/calls?mode=try", "{\"class\":\"INTERACTIVE\"}");
        assertEquals(201, first.status(), first.body());
        Api.Answer second = Api.post("web", "/limits/http-offset/calls?mode=try", "{\"class\":\"INTERACTIVE\"}");
        JsonObject limit = Api.get("worker", "/limits/http-offset").json();
        java.time.ZonedDateTime now = java.time.ZonedDateTime.now(plus5);
        java.time.ZonedDateTime reset = now.with(at);
        if (!reset.isAfter(now)) {
            reset = reset.plusDays(1);
        }
        Instant resetsAt = Instant.parse(limit.getString("resetsAt"));
        assertEquals(reset.toInstant(), resetsAt, "the day resets at " + at + " +05:00: " + limit);
        assertEquals(429, second.status(), "the day's second unit waits for the block's turn: " + second.body());
        long retryAfter = Long.parseLong(second.raw().headers().firstValue("Retry-After").orElseThrow());
        long toReset = Duration.between(Instant.now(), resetsAt).toSeconds();
        System.out.println("a daily quota at +05:00 from " + at + ": resets at " + resetsAt + " (in " + toReset
                + " s), the refused try's Retry-After " + retryAfter + " s");
        assertTrue(Math.abs(retryAfter - toReset) <= 3, "the try statement turns the beat at the same instant the "
                + "status names: Retry-After " + retryAfter + " s, reset in " + toReset + " s");
        assertEquals("+05:00", limit.getJsonObject("aligned").getString("zone"), "kept as the offset alone");
        Api.Answer cet = Api.put("ops", "/limits/http-offset-cet",
                "{\"calls\":5,\"windowSeconds\":86400,\"aligned\":{\"zone\":\"CET\"}}");
        assertEquals(400, cet.status(), cet.body());
        assertTrue(cet.json().getString("detail").contains("aligned.zone"), cet.body());
    }

    @Test
    void aTryIsGrantedNowOrToldWhenWithA429AndLeavesNothingInTheLine() {
        Api.put("ops", "/limits/http-try", "{\"calls\":2,\"windowSeconds\":60}"); // a slot every 30 s
        Api.Answer granted = Api.post("web", "/limits/http-try/calls?mode=try", "{\"class\":\"INTERACTIVE\"}");
        assertEquals(201, granted.status(), granted.body());
        assertEquals("GRANTED", granted.json().getString("state"));
        long id = granted.json().getJsonNumber("id").longValue();
        assertEquals(204, Api.post("web", "/calls/" + id + "/outcome", "{\"status\":200}").status());

        Api.Answer refused = Api.post("web", "/limits/http-try/calls?mode=try", "{\"class\":\"INTERACTIVE\"}");
        assertEquals(429, refused.status(), refused.body());
        assertEquals("application/problem+json", refused.contentType());
        assertEquals("urn:gate:problem:no-free-slot", refused.json().getString("type"));
        long ms = refused.json().getJsonNumber("retryAfterMs").longValue();
        assertTrue(ms > 25_000 && ms <= 30_150, "the next slot, about 30 s away: " + ms);
        long header = Long.parseLong(refused.raw().headers().firstValue("Retry-After").orElseThrow());
        assertEquals((ms + 999) / 1000, header, "Retry-After: the same, in whole seconds rounded up");
        JsonObject limit = Api.get("web", "/limits/http-try").json();
        assertEquals(0, limit.getJsonObject("waiting").getInt("INTERACTIVE"), "nothing left in the line: " + limit);

        // a try sent again with its Idempotency-Key (its answer was lost) gets the grant it made: no second slot
        Api.put("ops", "/limits/http-try-key", "{\"calls\":2,\"windowSeconds\":60}");
        Api.Answer first = Api.at("web", "POST", URI.create(Api.BASE + "/limits/http-try-key/calls?mode=try"),
                "{\"class\":\"INTERACTIVE\"}", "Idempotency-Key", "try-7");
        assertEquals(201, first.status(), first.body());
        Api.Answer again = Api.at("web", "POST", URI.create(Api.BASE + "/limits/http-try-key/calls?mode=try"),
                "{\"class\":\"INTERACTIVE\"}", "Idempotency-Key", "try-7");
        assertEquals(200, again.status(), again.body());
        assertTrue(again.json().getBoolean("repeated"));
        assertEquals(first.json().getJsonNumber("id").longValue(), again.json().getJsonNumber("id").longValue());
        Api.Answer otherLimit = Api.at("web", "POST", URI.create(Api.BASE + "/limits/http-try/calls?mode=try"),
                "{\"class\":\"INTERACTIVE\"}", "Idempotency-Key", "try-7");
        assertEquals(422, otherLimit.status(), otherLimit.body());
    }

    @Test
    void aConsumingTryEndsItsCallAtItsGrantOverHttpEachUserOnItsOwnKey() {
        Api.put("ops", "/limits/http-inbound", "{\"calls\":1,\"windowSeconds\":60,\"keyed\":true}");
        Api.Answer consumed = Api.at("web", "POST", URI.create(Api.BASE + "/limits/http-inbound/calls?mode=consume"),
                "{\"class\":\"INTERACTIVE\",\"key\":\"user-1\"}", "Idempotency-Key", "request-1");
        assertEquals(201, consumed.status(), consumed.body());
        assertEquals("DONE", consumed.json().getString("state"), "granted and ended at once: " + consumed.body());
        assertTrue(consumed.json().isNull("outcome"), "no outcome: " + consumed.body());
        long id = consumed.json().getJsonNumber("id").longValue();
        assertEquals(409, Api.post("web", "/calls/" + id + "/outcome", "{\"status\":200}").status(),
                "nothing to report");
        Api.Answer again = Api.at("web", "POST", URI.create(Api.BASE + "/limits/http-inbound/calls?mode=consume"),
                "{\"class\":\"INTERACTIVE\",\"key\":\"user-1\"}", "Idempotency-Key", "request-1");
        assertEquals(200, again.status(), "sent again after a lost answer: the same consumption, " + again.body());
        assertEquals(id, again.json().getJsonNumber("id").longValue());
        Api.Answer refused = Api.post("web", "/limits/http-inbound/calls?mode=consume",
                "{\"class\":\"INTERACTIVE\",\"key\":\"user-1\"}");
        assertEquals(429, refused.status(), "user-1's one a minute is used: " + refused.body());
        assertEquals("urn:gate:problem:no-free-slot", refused.json().getString("type"));
        Api.Answer keyless = Api.post("web", "/limits/http-inbound/calls?mode=consume",
                "{\"class\":\"MANUAL\",\"key\":\"user-2\"}");
        assertEquals(201, keyless.status(), "user-2 has its own: " + keyless.body());
        long keylessId = keyless.json().getJsonNumber("id").longValue();
        Api.Answer readBack = Api.get("web", "/calls/" + keylessId);
        assertEquals(200, readBack.status(), "a consume without a key is read back from its send: " + readBack.body());
        assertEquals("DONE", readBack.json().getString("state"), readBack.body());
        assertEquals("MANUAL", readBack.json().getString("class"), readBack.body());
        assertEquals(keyless.json().getString("grantedAt"), readBack.json().getString("grantedAt"), readBack.body());
        assertEquals(404, Api.get("worker", "/calls/" + keylessId).status(), "another program's: as good as absent");
        assertEquals(409, Api.post("web", "/calls/" + keylessId + "/outcome", "{\"status\":200}").status(),
                "nothing to report on it either");
        Api.Answer lease = Api.post("web", "/limits/http-inbound/calls?mode=consume",
                "{\"class\":\"INTERACTIVE\",\"key\":\"user-3\",\"leaseSeconds\":30}");
        assertEquals(400, lease.status(), lease.body());
        assertTrue(lease.json().getString("detail").startsWith("leaseSeconds"), lease.body());
        Api.Answer mode = Api.post("web", "/limits/http-inbound/calls?mode=spend", "{\"class\":\"INTERACTIVE\"}");
        assertEquals(400, mode.status(), mode.body());
        assertTrue(mode.json().getString("detail").contains("wait, try or consume"), mode.body());
    }

    @Test
    void aKeyedLimitUnderAParentGivesEachKeyItsOwnLineOverHttp() {
        Api.put("ops", "/limits/http-vendor-k", "{\"calls\":10,\"windowSeconds\":1}");
        Api.Answer put = Api.put("ops", "/limits/http-store", "{\"calls\":1,\"windowSeconds\":60,\"keyed\":true,"
                + "\"parent\":\"http-vendor-k\"}");
        assertEquals(201, put.status(), put.body());
        Api.Answer a = Api.post("web", "/limits/http-store/calls?waitSeconds=5",
                "{\"class\":\"INTERACTIVE\",\"key\":\"store-a\"}");
        assertEquals(201, a.status(), a.body());
        assertEquals("GRANTED", a.json().getString("state"));
        assertEquals("http-store~store-a", a.json().getString("limit"), "the call is in its key's line");
        Api.Answer b = Api.post("web", "/limits/http-store/calls?waitSeconds=5",
                "{\"class\":\"INTERACTIVE\",\"key\":\"store-b\"}");
        assertEquals("GRANTED", b.json().getString("state"), "another key is not held by the first: " + b.body());
        Api.Answer again = Api.post("web", "/limits/http-store/calls", "{\"class\":\"INTERACTIVE\",\"key\":\"store-a\"}");
        assertEquals("WAITING", again.json().getString("state"), "one a minute per key: " + again.body());
        JsonObject store = Api.get("worker", "/limits/http-store").json();
        assertTrue(store.getBoolean("keyed"), store.toString());
        assertEquals(2, store.getInt("openKeys"));
        assertEquals("http-vendor-k", store.getString("parent"));
        assertEquals(1, store.getJsonObject("waiting").getInt("INTERACTIVE"), "its keys' waiting calls: " + store);
        String list = Api.get("worker", "/limits").body();
        assertTrue(list.contains("\"http-store\"") && !list.contains("~"), "keys are not listed: " + list);
        Api.Answer noKey = Api.post("web", "/limits/http-store/calls", "{\"class\":\"INTERACTIVE\"}");
        assertEquals(400, noKey.status(), noKey.body());
        assertEquals("urn:gate:problem:keyed-limit", noKey.json().getString("type"));
        Api.Answer keyOnPlain = Api.post("web", "/limits/http-vendor-k/calls",
                "{\"class\":\"INTERACTIVE\",\"key\":\"store-a\"}");
        assertEquals(400, keyOnPlain.status(), keyOnPlain.body());
        Api.Answer badParent = Api.put("ops", "/limits/http-store2", "{\"calls\":1,\"windowSeconds\":60,"
                + "\"parent\":\"http-vendor-k\"}");
        assertEquals(400, badParent.status(), "a parent needs keyed: " + badParent.body());
        assertEquals(204, Api.delete("web", "/calls/" + again.json().getJsonNumber("id").longValue()).status());
    }

    @Test
    void anOperatorTurnsTheStarvationGuardOnAndOffAndLetsProgramsTakeTurns() {
        Api.Answer put = Api.put("ops", "/limits/http-guard", "{\"calls\":10,\"windowSeconds\":1,"
                + "\"agingAfterSeconds\":60,\"agingUpTo\":\"SCHEDULED\"}");
        assertEquals(201, put.status(), put.body());
        JsonObject limit = Api.get("worker", "/limits/http-guard").json();
        assertEquals(60, limit.getInt("agingAfterSeconds"), limit.toString());
        assertEquals("SCHEDULED", limit.getString("agingUpTo"));
        assertEquals(0, limit.getInt("agedLastHour"));
        // left out, the guard's class is INTERACTIVE; a declaration without the guard turns it off
        Api.put("ops", "/limits/http-guard", "{\"calls\":10,\"windowSeconds\":1,\"agingAfterSeconds\":30}");
        assertEquals("INTERACTIVE", Api.get("worker", "/limits/http-guard").json().getString("agingUpTo"));
        Api.put("ops", "/limits/http-guard", "{\"calls\":10,\"windowSeconds\":1,\"fairPrograms\":true,\"burst\":4}");
        limit = Api.get("worker", "/limits/http-guard").json();
        assertEquals(4, limit.getInt("burst"), limit.toString());
        assertFalse(limit.getBoolean("adaptive"));
        assertTrue(limit.isNull("effectiveCalls"), "a limit that does not adapt has no rate of its own: " + limit);
        assertTrue(limit.isNull("agingAfterSeconds") && limit.isNull("agingUpTo"), limit.toString());
        assertTrue(limit.getBoolean("fairPrograms"), "programs take turns: " + limit);
        Api.put("ops", "/limits/http-guard", "{\"calls\":10,\"windowSeconds\":1,\"adaptive\":true}");
        limit = Api.get("worker", "/limits/http-guard").json();
        assertTrue(limit.getBoolean("adaptive"));
        assertEquals(10, limit.getInt("effectiveCalls"), "an adaptive limit starts at its declared rate: " + limit);
        assertFalse(limit.getBoolean("fairPrograms"), "a declaration without it turns it off: " + limit);
    }

    @Test
    void aHeldSubmissionIsAnsweredWhileItsLeaseStillRunsSoTheProgramCanRenewIt() {
        Api.put("ops", "/limits/http-held", "{\"calls\":1,\"windowSeconds\":60}");
        Api.post("web", "/limits/http-held/calls", "{\"class\":\"SCHEDULED\"}"); // takes the minute's slot
        // asked to hold 30 s with a 5 s lease: held longer, the call would expire under a program still waiting
        JsonObject held = Api.post("worker", "/limits/http-held/calls?waitSeconds=30",
                "{\"class\":\"BACKFILL\",\"leaseSeconds\":5}").json();
        assertEquals("WAITING", held.getString("state"), "answered before its lease ran out, still in the line");
        long id = held.getJsonNumber("id").longValue();
        assertEquals(200, Api.post("worker", "/calls/" + id + "/lease", null).status(), "and the program renews it");
        assertEquals(204, Api.delete("worker", "/calls/" + id).status());
    }

    @Test
    void twoProgramsWithOneDedupeKeyShareOneCallAndItsOutcome() {
        Api.put("ops", "/limits/http-dedupe", "{\"calls\":1,\"windowSeconds\":60}");
        Api.post("web", "/limits/http-dedupe/calls", "{\"class\":\"SCHEDULED\"}"); // the slot is taken
        Api.Answer first = Api.post("web", "/limits/http-dedupe/calls",
                "{\"class\":\"SCHEDULED\",\"dedupeKey\":\"store-7/orders\"}");
        assertEquals(201, first.status());
        assertEquals(false, first.json().getBoolean("joined"));
        long id = first.json().getJsonNumber("id").longValue();
        Api.Answer second = Api.post("worker", "/limits/http-dedupe/calls",
                "{\"class\":\"BACKFILL\",\"dedupeKey\":\"store-7/orders\"}");
        assertEquals(200, second.status(), second.body());
        assertEquals(true, second.json().getBoolean("joined"));
        assertEquals(id, second.json().getJsonNumber("id").longValue(), "the same call id comes back");
        assertEquals(1, second.json().getInt("joiners"));
        assertEquals(200, Api.get("worker", "/calls/" + id).status(), "a joiner sees the call");
        assertEquals(403, Api.delete("worker", "/calls/" + id).status(), "but does not act on it");
        assertEquals(1, Api.get("ops", "/limits/http-dedupe").json().getInt("savedSends"));
        assertEquals(204, Api.delete("web", "/calls/" + id).status());
        assertEquals("CANCELLED", Api.get("worker", "/calls/" + id).json().getString("state"));
    }

    @Test
    void aJoinerSentAgainWithItsIdempotencyKeyFindsTheCallItJoinedEvenAfterItEnded() {
        // the joiner's key was not kept: sent again after the shared call ended, it made a call of its own (a second
        // vendor send); while the call lived, a second joiner
        Api.put("ops", "/limits/http-dedupe-retry", "{\"calls\":1,\"windowSeconds\":60}");
        Api.post("web", "/limits/http-dedupe-retry/calls", "{\"class\":\"SCHEDULED\"}"); // the slot is taken
        java.net.URI calls = java.net.URI.create(Api.BASE + "/limits/http-dedupe-retry/calls");
        String body = "{\"class\":\"SCHEDULED\",\"dedupeKey\":\"report-7\"}";
        long id = Api.post("web", "/limits/http-dedupe-retry/calls", body).json().getJsonNumber("id").longValue();
        Api.Answer joined = Api.at("worker", "POST", calls, body, "Idempotency-Key", "join-1");
        assertEquals(true, joined.json().getBoolean("joined"), joined.body());
        Api.Answer again = Api.at("worker", "POST", calls, body, "Idempotency-Key", "join-1");
        assertEquals(200, again.status(), again.body());
        assertEquals(id, again.json().getJsonNumber("id").longValue());
        assertEquals(true, again.json().getBoolean("repeated"), again.body());
        assertEquals(1, again.json().getInt("joiners"), "one joiner, not two");
        assertEquals(204, Api.delete("web", "/calls/" + id).status()); // the shared call ends
        Api.Answer late = Api.at("worker", "POST", calls, body, "Idempotency-Key", "join-1");
        assertEquals(200, late.status(), late.body());
        assertEquals(id, late.json().getJsonNumber("id").longValue(), "the call it joined, not a new one");
        assertEquals("CANCELLED", late.json().getString("state"));
        assertEquals(true, late.json().getBoolean("joined") && late.json().getBoolean("repeated"), late.body());
    }

    @Test
    void aSubmissionSentAgainWithItsIdempotencyKeyAnswersTheCallItMadeAndAddsNone() {
        Api.put("ops", "/limits/http-retry", "{\"calls\":1,\"windowSeconds\":60}");
        Api.put("ops", "/limits/http-retry-other", "{\"calls\":1,\"windowSeconds\":60}");
        java.net.URI calls = java.net.URI.create(Api.BASE + "/limits/http-retry/calls");
        Api.Answer first = Api.at("worker", "POST", calls, "{\"class\":\"BACKFILL\"}", "Idempotency-Key", "run-9/7");
        assertEquals(201, first.status(), first.body());
        long id = first.json().getJsonNumber("id").longValue();
        // the program never heard the first answer (cut after the commit), so it sends the same request again
        Api.Answer again = Api.at("worker", "POST", calls, "{\"class\":\"BACKFILL\"}", "Idempotency-Key", "run-9/7");
        assertEquals(200, again.status(), again.body());
        assertEquals(id, again.json().getJsonNumber("id").longValue(), "the call the first try made");
        assertEquals(true, again.json().getBoolean("repeated"));
        assertEquals(false, first.json().getBoolean("repeated"));
        assertEquals(1, Api.get("ops", "/limits/http-retry").json().getJsonObject("waiting").getInt("BACKFILL")
                + ("GRANTED".equals(first.json().getString("state")) ? 1 : 0), "one call, not two");

        Api.Answer reused = Api.at("worker", "POST", java.net.URI.create(Api.BASE + "/limits/http-retry-other/calls"),
                "{\"class\":\"BACKFILL\"}", "Idempotency-Key", "run-9/7");
        assertEquals(422, reused.status(), reused.body());
        assertTrue(reused.isProblem());
        assertTrue(reused.json().getString("detail").startsWith("Idempotency-Key: "), reused.body());
        Api.Answer tooLong = Api.at("worker", "POST", calls, "{\"class\":\"BACKFILL\"}", "Idempotency-Key",
                "k".repeat(201));
        assertEquals(400, tooLong.status(), tooLong.body());
        assertTrue(tooLong.json().getString("detail").startsWith("Idempotency-Key header"), tooLong.body());
    }

    /** A request the gate must refuse: what is sent, who sends it, the status, and the field the detail names. */
    private record Bad(String user, String method, String path, String body, int status, String field) {
    }

    @Test
    void thirtyMalformedRequestsAllGetAProblemAndLeaveTheLineIntact() {
        Api.put("ops", "/limits/http-bad", "{\"calls\":1,\"windowSeconds\":60}");
        long granted = Api.post("web", "/limits/http-bad/calls", "{\"class\":\"MANUAL\"}").json()
                .getJsonNumber("id").longValue();
        long waiting = Api.post("web", "/limits/http-bad/calls", "{\"class\":\"MANUAL\"}").json()
                .getJsonNumber("id").longValue();
        String calls = "/limits/http-bad/calls";
        String big = "{\"class\":\"BACKFILL\",\"pad\":\"" + "x".repeat(17 * 1024) + "\"}";
        List<Bad> table = List.of(
                new Bad("web", "POST", calls, "{\"class\":", 400, "body"),
                new Bad("web", "POST", calls, "[]", 400, "body"),
                new Bad("web", "POST", calls, "\"BACKFILL\"", 400, "body"),
                new Bad("web", "POST", calls, "not json at all", 400, "body"),
                new Bad("web", "POST", calls, "{}", 400, "class"),
                new Bad("web", "POST", calls, "{\"class\":null}", 400, "class"),
                new Bad("web", "POST", calls, "{\"class\":\"NOPE\"}", 400, "class"),
                new Bad("web", "POST", calls, "{\"class\":\"interactive\"}", 400, "class"),
                new Bad("web", "POST", calls, "{\"class\":5}", 400, "class"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"leaseSeconds\":4}", 400, "leaseSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"leaseSeconds\":301}", 400, "leaseSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"leaseSeconds\":\"30\"}", 400, "leaseSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"leaseSeconds\":30.5}", 400, "leaseSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"colour\":\"red\"}", 400, "colour"),
                new Bad("web", "POST", calls + "?waitSeconds=61", "{\"class\":\"BACKFILL\"}", 400, "waitSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"deadlineSeconds\":0}", 400,
                        "deadlineSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"deadlineSeconds\":1}", 429,
                        "deadlineSeconds"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"concurrencyKey\":\"\"}", 400,
                        "concurrencyKey"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"concurrencyKey\":5}", 400,
                        "concurrencyKey"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"dedupeKey\":\"\"}", 400, "dedupeKey"),
                new Bad("web", "POST", calls + "?waitSeconds=-1", "{\"class\":\"BACKFILL\"}", 400, "waitSeconds"),
                new Bad("web", "POST", calls + "?waitSeconds=abc", "{\"class\":\"BACKFILL\"}", 400, "waitSeconds"),
                new Bad("web", "POST", calls, big, 413, "body"),
                new Bad("web", "POST", "/limits/no-such-limit/calls", "{\"class\":\"BACKFILL\"}", 404, "limit"),
                new Bad("web", "POST", "/limits/bad%20name/calls", "{\"class\":\"BACKFILL\"}", 404, "limit"),
                new Bad("web", "GET", "/calls/999999999", null, 404, "call"),
                new Bad("web", "GET", "/calls/abc", null, 404, "call"),
                new Bad("web", "GET", "/calls/-5", null, 404, "call"),
                new Bad("web", "GET", "/calls/" + waiting + "?waitSeconds=99", null, 400, "waitSeconds"),
                new Bad("web", "POST", "/calls/" + waiting + "/outcome", "{\"status\":200}", 409, "state"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{}", 400, "status"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{\"status\":99}", 400, "status"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{\"status\":\"200\"}", 400, "status"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{\"status\":429,\"retryAfterSeconds\":-1}",
                        400, "retryAfterSeconds"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{\"status\":200,\"remaining\":3}",
                        400, "resetSeconds"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome",
                        "{\"status\":200,\"remaining\":-1,\"resetSeconds\":5}", 400, "remaining"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{\"status\":200,\"quota\":10}", 400,
                        "quota"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome",
                        "{\"status\":200,\"remaining\":3,\"resetSeconds\":5,\"quota\":0}", 400, "quota"),
                new Bad("web", "POST", "/calls/" + granted + "/outcome", "{\"status\":200,\"cost\":2}", 400, "cost"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"cost\":0}", 400, "cost"),
                new Bad("web", "POST", calls, "{\"class\":\"BACKFILL\",\"cost\":2}", 400, "cost"),
                new Bad("web", "DELETE", "/calls/" + granted, null, 409, "state"),
                new Bad("worker", "POST", "/calls/" + waiting + "/lease", null, 404, "call"),
                new Bad("worker", "DELETE", "/calls/" + waiting, null, 404, "call"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":0,\"windowSeconds\":60}", 400, "calls"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10}", 400, "windowSeconds"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":0}", 400, "windowSeconds"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"starvingAfterSeconds\":0}",
                        400, "starvingAfterSeconds"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"agingAfterSeconds\":0}",
                        400, "agingAfterSeconds"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"agingAfterSeconds\":5,"
                        + "\"agingUpTo\":\"BACKFILL\"}", 400, "agingUpTo"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"agingUpTo\":\"MANUAL\"}",
                        400, "agingUpTo"),
                new Bad("web", "POST", calls + "?mode=maybe", "{\"class\":\"BACKFILL\"}", 400, "mode"),
                new Bad("web", "POST", calls + "?mode=try", "{\"class\":\"BACKFILL\",\"dedupeKey\":\"k\"}", 400,
                        "dedupeKey"),
                new Bad("web", "POST", calls + "?mode=try&waitSeconds=5", "{\"class\":\"BACKFILL\"}", 400,
                        "waitSeconds"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"agingAfterSeconds\":5,"
                        + "\"fairPrograms\":true}", 400, "fairPrograms"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"fairPrograms\":\"yes\"}",
                        400, "fairPrograms"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"burst\":11}", 400,
                        "burst"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,\"windowSeconds\":1,\"adaptive\":1}", 400,
                        "adaptive"),
                new Bad("ops", "PUT", "/limits/bad!name", "{\"calls\":10,\"windowSeconds\":60}", 400, "name"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":10,", 400, "body"),
                new Bad("ops", "GET", "/limits/no-such-limit", null, 404, "limit"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":1,\"windowSeconds\":60,\"rules\":{}}", 400,
                        "rules"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":1,\"windowSeconds\":60,"
                        + "\"rules\":[{\"calls\":0,\"windowSeconds\":1}]}", 400, "rules[0].calls"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":1,\"windowSeconds\":60,"
                        + "\"rules\":[{\"calls\":5,\"window\":1}]}", 400, "rules[0].window"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":1,\"windowSeconds\":60,"
                        + "\"coolDownLadderSeconds\":[2,0]}", 400, "coolDownLadderSeconds[1]"),
                new Bad("ops", "PUT", "/limits/http-bad", "{\"calls\":1,\"windowSeconds\":60,"
                        + "\"minIntervalMs\":-5}", 400, "minIntervalMs"),
                new Bad("ops", "PUT", "/accounts/newbie", "{\"password\":\"short\",\"roles\":[\"caller\"]}", 400,
                        "password"),
                new Bad("ops", "PUT", "/accounts/newbie", "{\"password\":\"long-enough\",\"roles\":[\"root\"]}", 400,
                        "roles"));
        assertTrue(table.size() >= 30);
        for (Bad bad : table) {
            Api.Answer a = Api.call(bad.user(), bad.method(), bad.path(), bad.body());
            String what = bad.method() + " " + bad.path() + " " + (bad.body() == null ? "" : bad.body().length() > 80
                    ? bad.body().substring(0, 80) + "..." : bad.body());
            assertEquals(bad.status(), a.status(), what + " -> " + a.body());
            assertTrue(a.isProblem(), what + " answered " + a.contentType());
            JsonObject problem = a.json();
            assertEquals(bad.status(), problem.getInt("status"));
            assertTrue(problem.containsKey("type") && problem.containsKey("title"), problem.toString());
            assertTrue(problem.getString("detail").contains(bad.field()), what + ": the detail must name '"
                    + bad.field() + "': " + problem.getString("detail"));
        }
        JsonObject line = Api.get("ops", "/limits/http-bad").json();
        assertEquals(1, line.getJsonObject("waiting").getInt("MANUAL"), "the waiting call is still in the line");
        assertEquals(0, line.getJsonObject("waiting").getInt("BACKFILL"), "no refused request joined the line");
        assertEquals(1, line.getInt("calls"), "no refused PUT changed the limit");
        assertEquals("WAITING", Api.get("web", "/calls/" + waiting).json().getString("state"));
        assertEquals("GRANTED", Api.get("web", "/calls/" + granted).json().getString("state"));
    }
}
