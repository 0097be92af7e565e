package dev.gate.it;

import dev.gate.client.CallClass;
import dev.gate.client.GateClientException;
import dev.gate.client.GatedClientFilter;
import dev.gate.client.HttpGate;
import dev.gate.dev.TcpProxy;
import dev.gate.dev.VendorServer;
import dev.gate.it.filtered.VendorHistory;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.ClientResponseFilter;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.rest.client.RestClientBuilder;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gate-client's JAX-RS client filter outside the server, against the real gate and a vendor that counts by its own
 * clock ({@link VendorServer}: the demo vendor's rule): a MicroProfile Rest Client and a plain JAX-RS client with
 * the filter registered once, and no permit in the calling code.
 */
class ClientFilterIT extends GateDeployedAlone {

    private static final URI API = URI.create(Api.BASE);

    @Test
    void aRestClientWithTheFilterAgainstAVendorAtItsLimitGetsNo429AndTheWindowHoldsByTheVendorsCount()
            throws Exception {
        // the margin covers a grant's way to the vendor (a cold connection on a busy 2-core box: up to ~300 ms):
        // the vendor's count of 0 after a full window holds only until the gate's own log frees it, not its reset
        Api.put("ops", "/limits/filter-rest", "{\"calls\":10,\"windowSeconds\":2,\"receiptMarginMs\":300}");
        try (VendorServer vendor = new VendorServer(10, Duration.ofSeconds(2));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            VendorHistory history = RestClientBuilder.newBuilder().baseUri(URI.create(vendor.url()))
                    .register(new GatedClientFilter(gate, "filter-rest", CallClass.SCHEDULED))
                    .build(VendorHistory.class);
            Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
            Programs.run(3, 6, (program, i) -> {
                try (Response r = history.history("F" + program, Integer.toString(i))) {
                    statuses.merge(r.getStatus(), 1, Integer::sum);
                } catch (WebApplicationException refused) { // the Rest Client's way of answering a 4xx
                    statuses.merge(refused.getResponse().getStatus(), 1, Integer::sum);
                }
            });
            System.out.println("filter (MicroProfile Rest Client): 18 requests of 3 programs at a vendor of 10 per "
                    + "2 s: answers " + statuses + ", the vendor's worst window " + vendor.worstWindow()
                    + ", refused " + vendor.refused());
            assertEquals(Map.of(200, 18), statuses, "every request answered 200, none 429");
            assertEquals(0, vendor.refused());
            assertTrue(vendor.worstWindow() <= 10, "the window holds by the vendor's count: " + vendor.worstWindow());
            assertEquals(18, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'filter-rest' "
                    + "AND state = 'DONE' AND outcome_status = 200 AND call_class = 2"),
                    "each request waited in the line as SCHEDULED and reported its answer");
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'filter-rest' "
                    + "AND vendor_reported_at IS NOT NULL"), "the vendor's own count (its RateLimit headers) reached "
                    + "the gate (and, all of it the gate's own sends, held nothing)");
        }
    }

    @Test
    void aPlainClientReportsThe429ByItselfAndItsRetryIsANewCallInTheLine() throws Exception {
        Api.put("ops", "/limits/filter-429", "{\"calls\":5,\"windowSeconds\":2}");
        try (VendorServer vendor = new VendorServer(5, Duration.ofSeconds(2));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            Client client = ClientBuilder.newClient()
                    .register(new GatedClientFilter(gate, "filter-429", CallClass.SCHEDULED));
            try {
                for (int i = 0; i < 5; i++) { // another client takes the vendor's whole window
                    assertTrue(vendor.callBehindTheGatesBack());
                }
                try (Response refused = client.target(vendor.url() + "/history/R/1").request()
                        .property(GatedClientFilter.CALL_CLASS, CallClass.MANUAL).get()) {
                    assertEquals(429, refused.getStatus());
                }
                JsonObject limit = Api.get("ops", "/limits/filter-429").json();
                assertFalse(limit.isNull("pausedUntil"), "the 429 paused the limit for every program: " + limit);
                try (Response retried = client.target(vendor.url() + "/history/R/1").request().get()) {
                    assertEquals(200, retried.getStatus(), "the retry waited in the line, behind the pause");
                }
            } finally {
                client.close();
            }
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'filter-429' "
                    + "AND state = 'DONE' AND outcome_status = 429 AND outcome_retry_after_s >= 1 "
                    + "AND call_class = 1"), "the request's own class (MANUAL), its 429 and Retry-After reported");
            assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'filter-429' "
                    + "AND state = 'DONE' AND outcome_status = 200 AND call_class = 2"), "the retry: a call of its own");
            assertEquals(1, vendor.refused());
        }
    }

    @Test
    void whileTheGateIsPausedTheRequestStopsBeforeTheVendorWithTheGatesException() throws Exception {
        Api.put("ops", "/limits/filter-cut", "{\"calls\":5,\"windowSeconds\":1}");
        try (VendorServer vendor = new VendorServer(5, Duration.ofSeconds(1));
             HttpGate gate = HttpGate.connect(API, "worker", "worker")) {
            VendorHistory history = RestClientBuilder.newBuilder().baseUri(URI.create(vendor.url()))
                    .register(new GatedClientFilter(gate, "filter-cut", CallClass.MANUAL, Duration.ofSeconds(5)))
                    .build(VendorHistory.class);
            history.history("CUT", "0").close(); // the limit's slot exists
            ItDatabase.proxy.cut();
            try {
                ProcessingException stopped = assertThrows(ProcessingException.class,
                        () -> history.history("CUT", "1"));
                Throwable cause = stopped;
                while (cause != null && !(cause instanceof GateClientException)) {
                    cause = cause.getCause();
                }
                assertInstanceOf(GateClientException.Paused.class, cause, "the gate's own exception: " + stopped);
                assertTrue(cause.getMessage().startsWith("calls are paused"), cause.getMessage());
                assertEquals(1, vendor.requests(), "no vendor call without a grant");
            } finally {
                ItDatabase.proxy.restore();
            }
            Programs.awaitResumed("filter-cut");
        }
    }

    @Test
    void aReportWhoseAnswerIsLostIsSentAgainAndTheVendors429ReachesTheGate() throws Exception {
        Api.put("ops", "/limits/filter-lost", "{\"calls\":100,\"windowSeconds\":1}");
        try (TcpProxy cutAnswers = new TcpProxy("127.0.0.1", 8080);
             HttpGate gate = HttpGate.connect(URI.create(API.toString().replace(":8080/", ":" + cutAnswers.port()
                     + "/")), "worker", "worker");
             VendorServer vendor = new VendorServer(5, Duration.ofSeconds(30))) {
            for (int i = 0; i < 5; i++) { // another client takes the vendor's whole window: the next is a 429
                assertTrue(vendor.callBehindTheGatesBack());
            }
            // response filters run from the highest priority down: this one just before the gate's, so that the
            // answer to the gate's report is the one lost (the gate records it; the program never hears so)
            ClientResponseFilter loseTheReportsAnswer = (request, response) -> cutAnswers.loseAnswers(1);
            Client client = ClientBuilder.newClient()
                    .register(new GatedClientFilter(gate, "filter-lost", CallClass.SCHEDULED))
                    .register(loseTheReportsAnswer, Priorities.USER + 1000);
            try (Response r = client.target(vendor.url() + "/history/L/1").request().get()) {
                assertEquals(429, r.getStatus(), "the vendor's answer, as it came");
                assertTrue(r.getHeaderString(GatedClientFilter.CALL_ID_HEADER) != null, "with the gate's call id");
            } finally {
                client.close();
            }
            assertEquals(1, cutAnswers.answersLost(), "the report's first answer was lost");
        }
        assertEquals(1, ItDatabase.count("SELECT count(*) FROM gate_call WHERE limit_name = 'filter-lost' "
                + "AND state = 'DONE' AND outcome_status = 429"), "sent again: the gate has the 429");
        assertFalse(Api.get("ops", "/limits/filter-lost").json().isNull("pausedUntil"),
                "and the limit pauses for every program");
        Api.post("ops", "/limits/filter-lost/resume", null);
    }
}
