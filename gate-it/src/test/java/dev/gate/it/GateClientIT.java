package dev.gate.it;

import dev.gate.client.Attempt;
import dev.gate.client.CallClass;
import dev.gate.client.CallOptions;
import dev.gate.client.GateClientException;
import dev.gate.client.HttpGate;
import dev.gate.client.Permit;
import dev.gate.dev.TcpProxy;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java client for programs outside the server, against the real server: acquire and complete; a lease kept
 * alive by the client through a 20 s wait, four times longer than it; a lost answer to a submission sent again
 * and finding its call; a permit closed without an outcome given up at once; a deadline refused at once; a call not
 * granted in time leaves the line; calls are paused while the database is cut; an outcome whose answer is lost, or
 * sent while the database is cut, is sent again until the gate has it; a held sign-in is told as such, and an outcome
 * it refused reaches the gate when the hold ends.
 */
class GateClientIT extends GateDeployedAlone {

    private static final URI API = URI.create(Api.BASE);

    @Test
    void aProgramAcquiresAndReportsTheVendorsAnswer() throws Exception {
        Api.put("ops", "/limits/client-open", "{\"calls\":100,\"windowSeconds\":1}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker");
             Permit p = gate.acquire("client-open", CallClass.SCHEDULED, Duration.ofSeconds(10))) {
            assertTrue(p.callId() > 0);
            p.complete(200);
            JsonObject call = Api.get("worker", "/calls/" + p.callId()).json();
            assertEquals("DONE", call.getString("state"));
            assertEquals(200, call.getJsonObject("outcome").getInt("status"));
        }
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            assertThrows(GateClientException.UnknownLimit.class,
                    () -> gate.acquire("client-none", CallClass.SCHEDULED, Duration.ofSeconds(1)));
        }
    }

    @Test
    void aCallOfSeveralUnitsTakesThemAllAndACostAboveTheRuleIsA400NamingTheField() throws Exception {
        // 10 units per 6 s: a gap of 0.6 s, so a call of 4 moves the beat 2.4 s, and the window holds 10 units
        Api.put("ops", "/limits/client-cost", "{\"calls\":10,\"windowSeconds\":6}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Permit four = gate.acquire("client-cost", CallClass.SCHEDULED, Duration.ofSeconds(10),
                    CallOptions.NONE.withCost(4));
            four.complete(200);
            assertEquals(4, Api.get("ops", "/limits/client-cost").json().getInt("usedInWindow"), "units, not calls");
            Attempt seven = gate.tryAcquire("client-cost", CallClass.INTERACTIVE, CallOptions.NONE.withCost(7));
            assertFalse(seven.granted(), "6 units are left: " + seven);
            assertTrue(seven.retryAfter().compareTo(Duration.ofSeconds(5)) > 0,
                    "the window's first 4 units leave it 6 s after their send (the beat alone would say 2.4 s): "
                            + seven);
            Permit six = gate.acquire("client-cost", CallClass.INTERACTIVE, Duration.ofSeconds(10),
                    CallOptions.NONE.withCost(6));
            // four gaps of 0.6 s from the first call's slot (its grant may have come a little after it): not one
            assertTrue(!six.grantedAt().isBefore(four.grantedAt().plusMillis(1_800)),
                    "a call of 4 takes four gaps of the beat: " + four.grantedAt() + ", then " + six.grantedAt());
            six.complete(200);
            assertEquals(10, Api.get("ops", "/limits/client-cost").json().getInt("usedInWindow"));
            // the client's way with a request the gate refuses as bad (400): an IllegalArgumentException with its detail
            IllegalArgumentException tooMuch = assertThrows(IllegalArgumentException.class,
                    () -> gate.acquire("client-cost", CallClass.SCHEDULED, Duration.ofSeconds(1),
                            CallOptions.NONE.withCost(11)));
            assertTrue(tooMuch.getMessage().contains("cost: must be 1 to 10"), tooMuch.getMessage());
        }
        Api.Answer refused = Api.post("worker", "/limits/client-cost/calls", "{\"class\":\"SCHEDULED\",\"cost\":11}");
        assertEquals(400, refused.status(), refused.body());
        assertTrue(refused.isProblem(), refused.body());
        assertTrue(refused.json().getString("detail").startsWith("cost: must be 1 to 10"), refused.body());
        Api.Answer zero = Api.post("worker", "/limits/client-cost/calls", "{\"class\":\"SCHEDULED\",\"cost\":0}");
        assertEquals(400, zero.status(), zero.body());
        assertTrue(zero.json().getString("detail").startsWith("cost:"), zero.body());
    }

    @Test
    void aSecondClientOfTheVendorsAccountUsesHalfTheQuotaAndTheGatesProgramsSeeNo429() throws Exception {
        Api.put("ops", "/limits/client-shared", "{\"calls\":10,\"windowSeconds\":4,\"receiptMarginMs\":300}");
        try (dev.gate.dev.VendorServer vendor = new dev.gate.dev.VendorServer(10, Duration.ofSeconds(4));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            for (int i = 0; i < 5; i++) { // another client of the same account, not through the gate
                assertTrue(vendor.callBehindTheGatesBack());
            }
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicReference<Long> leftSeen = new java.util.concurrent.atomic.AtomicReference<>();
            Programs.run(3, 4, (program, i) -> {
                try (Permit p = gate.acquire("client-shared", CallClass.SCHEDULED, Duration.ofSeconds(30))) {
                    java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                                    URI.create(vendor.url() + "/history/P" + program + "/" + i)).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 429) {
                        refused.incrementAndGet();
                    }
                    p.complete(r); // the status and what the vendor's headers say of its count
                    JsonObject limit = Api.get("ops", "/limits/client-shared").json();
                    if (!limit.isNull("vendorCount")) {
                        leftSeen.set(limit.getJsonObject("vendorCount").getJsonNumber("left").longValue());
                    }
                }
            });
            System.out.println("vendor count over HTTP: 5 of 10 taken behind the gate's back; 12 calls through the "
                    + "gate, " + refused.get() + " refused; the vendor's count last seen in the status: "
                    + leftSeen.get() + " left; vendor requests " + vendor.requests() + ", refused " + vendor.refused());
            assertEquals(0, refused.get(), "no program behind the gate met a 429");
            assertEquals(0, vendor.refused());
            assertTrue(leftSeen.get() != null, "the status showed the vendor's count");
            assertEquals(12, vendor.fetched().entrySet().stream().filter(e -> e.getKey().startsWith("P"))
                    .mapToInt(java.util.Map.Entry::getValue).sum());
        }
    }

    @Test
    void sendWaitsSendsAndReportsAgainstAVendorAtItsLimitWithNo429() throws Exception {
        // the margin covers a grant's way to the vendor (a cold connection on a busy 2-core box: up to ~300 ms):
        // the vendor's count of 0 after a full window holds only until the gate's own log frees it, not its reset
        Api.put("ops", "/limits/client-send", "{\"calls\":10,\"windowSeconds\":2,\"receiptMarginMs\":300}");
        try (dev.gate.dev.VendorServer vendor = new dev.gate.dev.VendorServer(10, Duration.ofSeconds(2));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            java.util.Map<Integer, Integer> statuses = new java.util.concurrent.ConcurrentHashMap<>();
            Programs.run(3, 6, (program, i) -> statuses.merge(gate.send("client-send", CallClass.SCHEDULED,
                    java.net.http.HttpRequest.newBuilder(URI.create(vendor.url() + "/history/S" + program + "/" + i))
                            .build(), java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode(), 1, Integer::sum));
            System.out.println("send: 18 sends of 3 programs at a vendor of 10 per 2 s: answers " + statuses
                    + ", the vendor's worst window " + vendor.worstWindow() + ", refused " + vendor.refused());
            assertEquals(java.util.Map.of(200, 18), statuses, "every send answered 200, none 429");
            assertTrue(vendor.worstWindow() <= 10, "the window holds by the vendor's count: " + vendor.worstWindow());
            assertEquals(18, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-send' "
                    + "AND state = 'DONE' AND outcome_status = 200"), "each send reported its answer");
        }
    }

    @Test
    void sendReturnsA429AsItIsOrWithRetriesWaitsInTheLineAgain() throws Exception {
        Api.put("ops", "/limits/client-retry", "{\"calls\":5,\"windowSeconds\":2}");
        try (dev.gate.dev.VendorServer vendor = new dev.gate.dev.VendorServer(5, Duration.ofSeconds(2));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            for (int i = 0; i < 5; i++) { // another client takes the vendor's whole window
                assertTrue(vendor.callBehindTheGatesBack());
            }
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                    URI.create(vendor.url() + "/history/R/1")).build();
            java.net.http.HttpResponse<String> refused = gate.send("client-retry", CallClass.SCHEDULED, request,
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(429, refused.statusCode(), "a 429 comes back as it is: no retry unless asked");
            assertTrue(!Api.get("ops", "/limits/client-retry").json().isNull("pausedUntil"), "and it paused the limit");
            java.net.http.HttpResponse<String> retried = gate.sending().withRetries(3).send("client-retry",
                    CallClass.SCHEDULED, request, java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, retried.statusCode(), "a retry waits in the line, behind the pause");
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-retry' "
                    + "AND state = 'DONE' AND outcome_status = 200"));
            long calls = ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-retry'");
            System.out.println("send with retries: " + calls + " calls in the line for 2 sends, the vendor refused "
                    + vendor.refused());
            assertEquals(calls - 1, vendor.refused(), "each retry was a call of its own in the line");
        }
    }

    @Test
    void aTryIsGrantedNowOrSaysWhen() throws Exception {
        Api.put("ops", "/limits/client-try", "{\"calls\":1,\"windowSeconds\":5}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Attempt first = gate.tryAcquire("client-try", CallClass.INTERACTIVE);
            assertTrue(first.granted(), first.toString());
            try (Permit p = first.permit().orElseThrow()) {
                p.complete(200);
            }
            Attempt second = gate.tryAcquire("client-try", CallClass.INTERACTIVE);
            assertFalse(second.granted());
            assertTrue(second.retryAfter().compareTo(Duration.ofSeconds(3)) > 0
                    && second.retryAfter().compareTo(Duration.ofMillis(5_030)) <= 0, second.toString());
            assertThrows(GateClientException.UnknownLimit.class,
                    () -> gate.tryAcquire("client-none", CallClass.INTERACTIVE));
        }
    }

    @Test
    void aConsumingTryEndsItsCallAtOnceEachUserOnItsOwnKey() throws Exception {
        Api.put("ops", "/limits/client-consume", "{\"calls\":1,\"windowSeconds\":60,\"keyed\":true}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Attempt userA = gate.tryConsume("client-consume", CallClass.INTERACTIVE,
                    CallOptions.NONE.withLimitKey("user-a"));
            assertTrue(userA.granted(), userA.toString());
            long id = userA.permit().orElseThrow().callId();
            assertEquals("DONE", Api.get("worker", "/calls/" + id).json().getString("state"), "nothing to report");
            Attempt againA = gate.tryConsume("client-consume", CallClass.INTERACTIVE,
                    CallOptions.NONE.withLimitKey("user-a"));
            assertFalse(againA.granted(), "user-a's one a minute is used");
            assertTrue(againA.retryAfter().compareTo(Duration.ofSeconds(50)) > 0, againA.toString());
            assertTrue(gate.tryConsume("client-consume", CallClass.INTERACTIVE, CallOptions.NONE.withLimitKey(
                    "user-b")).granted(), "user-b has its own");
        }
    }

    @Test
    void aKeyedLimitsKeysEachHaveTheirOwnSlots() throws Exception {
        Api.put("ops", "/limits/client-keyed", "{\"calls\":1,\"windowSeconds\":60,\"keyed\":true}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Attempt userA = gate.tryAcquire("client-keyed", CallClass.INTERACTIVE, "user-a");
            assertTrue(userA.granted(), userA.toString());
            userA.permit().orElseThrow().complete(200);
            assertFalse(gate.tryAcquire("client-keyed", CallClass.INTERACTIVE, "user-a").granted(),
                    "one a minute for user-a");
            try (Permit b = gate.acquire("client-keyed", CallClass.SCHEDULED, Duration.ofSeconds(5),
                    CallOptions.NONE.withLimitKey("user-b"))) {
                b.complete(200); // user-b's own slot, not held by user-a's
            }
        }
    }

    @Test
    void aTryWhoseAnswerIsLostIsSentAgainAndGetsTheGrantItMade() throws Exception {
        Api.put("ops", "/limits/client-try-lost", "{\"calls\":100,\"windowSeconds\":1}");
        try (TcpProxy cutAnswers = new TcpProxy("127.0.0.1", 8080);
             HttpGate gate = HttpGate.connect(URI.create(API.toString().replace(":8080/", ":" + cutAnswers.port()
                     + "/")), "worker", "worker")) {
            cutAnswers.loseAnswers(1); // the gate grants the try; its answer never reaches the program
            Attempt a = gate.tryAcquire("client-try-lost", CallClass.INTERACTIVE);
            assertTrue(a.granted(), a.toString());
            try (Permit p = a.permit().orElseThrow()) {
                p.complete(200);
            }
            assertEquals(1, cutAnswers.answersLost());
        }
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-try-lost'"),
                "the try sent again got the grant the lost answer was about: one slot, not two");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_send WHERE limit_name = 'client-try-lost'"));
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-try-lost' "
                + "AND state = 'DONE'"));
    }

    @Test
    void anOutcomeWhoseAnswerIsLostIsSentAgainAndTheVendors429ReachesTheGate() throws Exception {
        Api.put("ops", "/limits/client-outcome-lost", "{\"calls\":100,\"windowSeconds\":1}");
        long id;
        try (TcpProxy cutAnswers = new TcpProxy("127.0.0.1", 8080);
             HttpGate gate = HttpGate.connect(URI.create(API.toString().replace(":8080/", ":" + cutAnswers.port()
                     + "/")), "worker", "worker");
             Permit p = gate.acquire("client-outcome-lost", CallClass.SCHEDULED, Duration.ofSeconds(10))) {
            id = p.callId();
            cutAnswers.loseAnswers(1); // the gate records the 429; its answer never reaches the program
            p.complete(429, Duration.ofSeconds(30));
            assertEquals(1, cutAnswers.answersLost());
        }
        JsonObject call = Api.get("worker", "/calls/" + id).json();
        assertEquals("DONE", call.getString("state"), "reported, and not given up by close()");
        assertEquals(429, call.getJsonObject("outcome").getInt("status"));
        assertFalse(Api.get("ops", "/limits/client-outcome-lost").json().isNull("pausedUntil"),
                "the vendor's slow-down reached the gate: the limit pauses for every program");
        Api.post("ops", "/limits/client-outcome-lost/resume", null);
    }

    @Test
    void anOutcomeReportedWhileTheDatabaseIsCutIsSentAgainUntilItIsRecorded() throws Exception {
        Api.put("ops", "/limits/client-outcome-cut", "{\"calls\":100,\"windowSeconds\":1}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Permit p = gate.acquire("client-outcome-cut", CallClass.SCHEDULED, Duration.ofSeconds(10));
            ItDatabase.proxy.cut();
            Thread restore = new Thread(() -> {
                try {
                    Thread.sleep(2_000); // the outage's length
                    ItDatabase.proxy.restore();
                } catch (Exception e) {
                    throw new IllegalStateException("the database could not be brought back", e);
                }
            });
            restore.start();
            try {
                p.complete(200); // paused for ~2 s: sent again until the gate records it
            } finally {
                restore.join();
            }
            assertEquals("DONE", Api.get("worker", "/calls/" + p.callId()).json().getString("state"));
        }
    }

    @Test
    void aProgramWhoseSignInIsHeldHearsSoAndItsOutcomeReachesTheGateWhenTheHoldEnds() throws Exception {
        Api.put("ops", "/limits/client-held", "{\"calls\":100,\"windowSeconds\":1}");
        assertEquals(201, Api.put("ops", "/accounts/it-held", "{\"password\":\"held-secret\",\"roles\":[\"caller\"]}")
                .status());
        try (HttpGate gate = HttpGate.connect(API, "it-held", "held-secret")) {
            Permit p = gate.acquire("client-held", CallClass.SCHEDULED, Duration.ofSeconds(10));
            for (int i = 0; i < 5; i++) { // someone on this host guesses its password: its name is held here
                assertEquals(401, Api.get("it-held:guess-" + i, "/limits").status());
            }
            GateClientException.SignInHeld tried = assertThrows(GateClientException.SignInHeld.class,
                    () -> gate.tryAcquire("client-held", CallClass.INTERACTIVE));
            assertTrue(tried.retryAfter().compareTo(Duration.ZERO) > 0
                    && tried.retryAfter().compareTo(Duration.ofSeconds(15)) <= 0, tried.retryAfter().toString());
            assertThrows(GateClientException.SignInHeld.class,
                    () -> gate.acquire("client-held", CallClass.SCHEDULED, Duration.ofSeconds(5)));
            long t0 = System.nanoTime();
            p.complete(429, Duration.ofSeconds(30)); // kept through the hold (15 s), then sent
            Duration kept = Duration.ofNanos(System.nanoTime() - t0);
            System.out.println("a held program's outcome reached the gate after " + kept.toMillis() + " ms");
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'DONE' "
                    + "AND outcome_status = 429", p.callId()), "the outcome was recorded");
            assertFalse(Api.get("ops", "/limits/client-held").json().isNull("pausedUntil"),
                    "the vendor's slow-down reached the gate");
        } finally {
            Api.post("ops", "/limits/client-held/resume", null);
            Api.delete("ops", "/accounts/it-held");
        }
    }

    @Test
    void theClientKeepsAWaitingCallsLeaseAliveThroughAWaitFourTimesItsLease() throws Exception {
        Api.put("ops", "/limits/client-slow", "{\"calls\":1,\"windowSeconds\":20}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Permit first = gate.acquire("client-slow", CallClass.SCHEDULED, Duration.ofSeconds(10));
            first.complete(200);
            long t0 = System.nanoTime();
            // a 5 s lease (the shortest): without the client's renewals the call would expire three times over
            // before the next slot (20 s)
            Permit second = gate.acquire("client-slow", CallClass.BACKFILL, Duration.ofSeconds(40),
                    CallOptions.NONE.withLease(Duration.ofSeconds(5)));
            Duration waited = Duration.ofNanos(System.nanoTime() - t0);
            assertTrue(waited.compareTo(Duration.ofSeconds(18)) > 0, "it waited for the next slot: " + waited);
            assertTrue(!second.grantedAt().isBefore(first.grantedAt().plusSeconds(20)), "on the beat");
            second.complete(200);
        }
    }

    @Test
    void aSubmissionWhoseAnswerIsLostIsSentAgainAndFindsTheCallItMade() throws Exception {
        Api.put("ops", "/limits/client-lost", "{\"calls\":100,\"windowSeconds\":1}");
        try (TcpProxy cutAnswers = new TcpProxy("127.0.0.1", 8080);
             HttpGate gate = HttpGate.connect(URI.create(API.toString().replace(":8080/", ":" + cutAnswers.port()
                     + "/")), "worker", "worker")) {
            cutAnswers.loseAnswers(1); // the gate takes the submission; its answer never reaches the program
            try (Permit p = gate.acquire("client-lost", CallClass.SCHEDULED, Duration.ofSeconds(10))) {
                p.complete(200);
            }
            assertEquals(1, cutAnswers.answersLost());
        }
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-lost'"),
                "the retry found the call the lost answer was about: one call, not two");
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-lost' "
                + "AND state = 'DONE'"));
    }

    @Test
    void aSecondProgramWithTheSameDedupeKeyJoinsTheCallAndGetsTheFirstProgramsAnswer() throws Exception {
        Api.put("ops", "/limits/client-once", "{\"calls\":100,\"windowSeconds\":1}");
        CallOptions once = CallOptions.NONE.withDedupeKey("report-2026-12");
        try (HttpGate worker = HttpGate.connect(API, "worker", "worker");
             HttpGate web = HttpGate.connect(API, "web", "web");
             Permit first = worker.acquire("client-once", CallClass.SCHEDULED, Duration.ofSeconds(5), once);
             Permit second = web.acquire("client-once", CallClass.MANUAL, Duration.ofSeconds(5), once)) {
            assertTrue(!first.joined() && second.joined(), "only the first calls the vendor");
            assertEquals(first.callId(), second.callId());
            java.util.concurrent.CompletableFuture<dev.gate.client.Outcome> shared =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return web.awaitOutcome(second, Duration.ofSeconds(30));
                        } catch (Exception e) {
                            throw new java.util.concurrent.CompletionException(e);
                        }
                    });
            Thread.sleep(300); // the joiner is waiting (long-polling) before the answer comes
            assertFalse(shared.isDone(), "no answer before the first program reports one");
            first.complete(429, Duration.ofSeconds(3));
            dev.gate.client.Outcome o = shared.get(15, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(429, o.status(), "the joiner hears the first program's answer");
            assertEquals(Duration.ofSeconds(3), o.retryAfter());
        }
    }

    @Test
    void sendRefusesADedupeKeyUpFrontSoThatNoJoinerReachesTheVendor() throws Exception {
        Api.put("ops", "/limits/client-send-once", "{\"calls\":100,\"windowSeconds\":1}");
        CallOptions once = CallOptions.NONE.withDedupeKey("quote-AAPL");
        try (dev.gate.dev.VendorServer vendor = new dev.gate.dev.VendorServer(100, Duration.ofSeconds(1));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                    URI.create(vendor.url() + "/history/AAPL/1")).build();
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            Programs.run(10, 1, (program, i) -> {
                try {
                    gate.sending().withOptions(once).send("client-send-once", CallClass.SCHEDULED, request,
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                } catch (IllegalArgumentException e) {
                    assertTrue(e.getMessage().contains("dedupe key"), e.getMessage());
                    refused.incrementAndGet();
                }
            });
            System.out.println("send with one dedupe key, 10 at once: refused " + refused + ", the vendor counted "
                    + vendor.requests());
            assertEquals(10, refused.get(), "each send with a dedupe key is refused up front");
            assertEquals(0, vendor.requests(), "no joiner (nor anyone) reached the vendor");
            assertEquals(0, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'client-send-once'"),
                    "nothing joined the line");
        }
    }

    @Test
    void aPermitClosedWithoutAnOutcomeGivesItsGrantUpAtOnce() throws Exception {
        Api.put("ops", "/limits/client-give-up", "{\"calls\":100,\"windowSeconds\":1}");
        CallOptions oneStore = CallOptions.NONE.withConcurrencyKey("store-7");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            long first;
            try (Permit p = gate.acquire("client-give-up", CallClass.SCHEDULED, Duration.ofSeconds(5), oneStore)) {
                first = p.callId(); // the program fails before its vendor call: no complete()
            }
            assertEquals("ABANDONED", Api.get("worker", "/calls/" + first).json().getString("state"));
            // the key is free at once, not at the end of the first call's 30 s lease
            try (Permit p = gate.acquire("client-give-up", CallClass.SCHEDULED, Duration.ofSeconds(5), oneStore)) {
                p.complete(200);
            }
        }
    }

    @Test
    void aDeadlineThatCannotBeMetIsRefusedAndACallNotGrantedInTimeLeavesTheLine() throws Exception {
        Api.put("ops", "/limits/client-busy", "{\"calls\":1,\"windowSeconds\":60}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            gate.acquire("client-busy", CallClass.SCHEDULED, Duration.ofSeconds(10)).complete(200);
            assertThrows(GateClientException.DeadlineMissed.class, () -> gate.acquire("client-busy",
                    CallClass.BACKFILL, Duration.ofSeconds(10), CallOptions.NONE.withDeadline(Duration.ofSeconds(2))));
            Instant before = Instant.now();
            GateClientException.Timeout timeout = assertThrows(GateClientException.Timeout.class,
                    () -> gate.acquire("client-busy", CallClass.BACKFILL, Duration.ofSeconds(2)));
            assertTrue(Duration.between(before, Instant.now()).compareTo(Duration.ofSeconds(10)) < 0);
            assertTrue(timeout.getMessage().contains("has left the line"), timeout.getMessage());
            assertEquals(0, Api.get("ops", "/limits/client-busy").json().getJsonObject("waiting").getInt("BACKFILL"),
                    "nothing left waiting");
        }
    }

    @Test
    void whileTheDatabaseIsCutTheClientHearsCallsArePaused() throws Exception {
        Api.put("ops", "/limits/client-cut", "{\"calls\":5,\"windowSeconds\":1}");
        try (HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            gate.acquire("client-cut", CallClass.MANUAL, Duration.ofSeconds(5)).complete(200);
            ItDatabase.proxy.cut();
            try (dev.gate.dev.VendorServer vendor = new dev.gate.dev.VendorServer(5, Duration.ofSeconds(1))) {
                GateClientException.Paused paused = assertThrows(GateClientException.Paused.class,
                        () -> gate.acquire("client-cut", CallClass.MANUAL, Duration.ofSeconds(5)));
                assertTrue(paused.getMessage().startsWith("calls are paused"), paused.getMessage());
                // send: the same answer, and the vendor is never called without a grant
                assertThrows(GateClientException.Paused.class, () -> gate.sending()
                        .withMaxWait(Duration.ofSeconds(5)).send("client-cut", CallClass.MANUAL,
                                java.net.http.HttpRequest.newBuilder(URI.create(vendor.url() + "/history/CUT/1")).build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString()));
                assertEquals(0, vendor.requests(), "no vendor call without a grant");
            } finally {
                ItDatabase.proxy.restore();
            }
            Programs.awaitResumed("client-cut");
            try (Permit p = gate.acquire("client-cut", CallClass.MANUAL, Duration.ofSeconds(5))) {
                p.complete(200); // and the client is granted again
            }
        }
    }
}
