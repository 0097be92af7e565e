package dev.gate.it;

import dev.gate.api.Gate;
import dev.gate.api.PersonWaiting;
import dev.gate.dev.LimitRow;
import dev.gate.dev.SendLog;
import dev.gate.it.gated.GatedCaller;
import dev.gate.it.gated.GatedVendor;
import dev.gate.it.gated.HistoryGate;
import dev.gate.it.gated.VendorHistory;
import dev.gate.headers.VendorHeaders;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.ws.rs.core.Response;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.naming.InitialContext;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Gated} in an application deployed beside the gate: a method waits in the line and reports what it returned
 * or threw, with no permit in the application's code. The gate's tables are the judge.
 */
@ExtendWith(ArquillianExtension.class)
class GatedIT {

    private static final String VENDOR = "http://127.0.0.1:8080/demo-vendor";

    @Deployment(name = "gate", order = 1, testable = false)
    static EnterpriseArchive gateEar() {
        return BuiltEar.read();
    }

    @Deployment(name = "vendor", order = 2, testable = false)
    static WebArchive vendor() {
        return BuiltEar.demoVendor();
    }

    /** An application beside the gate: dev.gate.api (the EJB client jar) and the headers' reader, as a user adds. */
    @Deployment(name = "gated", order = 3)
    static WebArchive gated() {
        return ShrinkWrap.create(WebArchive.class, "gated.war")
                .addPackage(Gate.class.getPackage())
                .addPackage(VendorHeaders.class.getPackage())
                .addClasses(GatedVendor.class, GatedCaller.class, VendorHistory.class, HistoryGate.class,
                        ServerTables.class, LimitRow.class, SendLog.class, SendLog.Send.class);
    }

    private static GatedCaller caller() throws Exception {
        return (GatedCaller) new InitialContext().lookup("java:module/GatedCaller");
    }

    @Test
    @OperateOnDeployment("gated")
    void aGatedMethodReturningA429ResponsePausesTheLimitForEveryone() throws Exception {
        ServerTables.limit("it-gated-429", 10, Duration.ofSeconds(1));
        Response r = caller().rateLimited();
        assertEquals(429, r.getStatus());
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-429' "
                + "AND state = 'DONE' AND outcome_status = 429 AND outcome_retry_after_s = 7"));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'it-gated-429' "
                + "AND paused_until > clock_timestamp() + interval '5 seconds'"), "paused for the 7 s it asked");
    }

    @Test
    @OperateOnDeployment("gated")
    void aGatedMethodThrowingAnIoExceptionEndsItsCallAbandonedAtOnce() throws Exception {
        ServerTables.limit("it-gated-io", 10, Duration.ofSeconds(1));
        assertThrows(IOException.class, () -> caller().broken());
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-io' "
                + "AND state = 'ABANDONED'"), "given up at once, not at its lease's end");
    }

    @Test
    @OperateOnDeployment("gated")
    void aPlainReturnIsA200AndAPersonWaitingMakesTheCallInteractive() throws Exception {
        ServerTables.limit("it-gated-ok", 10, Duration.ofSeconds(1));
        assertEquals("history of store-1", caller().fetch("store-1"));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-ok' "
                + "AND state = 'DONE' AND outcome_status = 200 AND call_class = 4 AND concurrency_key = 'store-1'"),
                "BACKFILL as declared, the key from the parameter");
        CDI.current().select(PersonWaiting.class).get().mark(); // this request: a person waits
        caller().fetch("store-2");
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-ok' "
                + "AND call_class = 0 AND concurrency_key = 'store-2'"), "INTERACTIVE while a person waits");
        assertTrue(ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-gated-ok'") == 2);
    }

    @Test
    @OperateOnDeployment("gated")
    void aRestClientWithTheGatesFilterAgainstTheDemoVendorAtItsLimitGetsNo429() throws Exception {
        // the margin covers a grant's way to the vendor (a cold connection on a busy 2-core box: up to ~300 ms):
        // the vendor's count of 0 after a full window holds only until the gate's own log frees it, not its reset
        ServerTables.limit(HistoryGate.LIMIT, 10, Duration.ofSeconds(2), "receipt_margin_ms", 300L);
        GatedCaller caller = caller();
        // the Rest Client's first request builds its proxy and connection (over 300 ms here, more than any margin a
        // tight limit would declare): made once before the vendor's counters start, as a server's warm-up would
        assertEquals(200, caller.history(VENDOR, "WARM", "0"));
        HttpClient http = HttpClient.newHttpClient();
        assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(VENDOR + "/rule?calls=10&windowSeconds=2"))
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        ManagedExecutorService programs = InitialContext.doLookup("java:comp/DefaultManagedExecutorService");
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < 18; i++) { // 18 requests of 3 threads at a vendor of 10 per 2 s
            int day = i;
            answers.add(programs.submit(() -> caller.history(VENDOR, "SRV" + day % 3, Integer.toString(day))));
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (Future<Integer> a : answers) {
            statuses.merge(a.get(60, TimeUnit.SECONDS), 1, Integer::sum);
        }
        JsonObject counters = Json.createReader(new StringReader(http.send(HttpRequest.newBuilder(
                URI.create(VENDOR + "/counters")).build(), HttpResponse.BodyHandlers.ofString()).body())).readObject();
        System.out.println("filter on the server (MicroProfile Rest Client, @RegisterProvider): 18 requests at the "
                + "demo vendor of 10 per 2 s: answers " + statuses + "; the vendor's counters " + counters);
        assertEquals(Map.of(200, 18), statuses, "every request answered 200, none 429");
        assertEquals(0, counters.getInt("refused"));
        assertTrue(counters.getInt("worstWindow") <= 10, "the window holds by the vendor's count: " + counters);
        assertEquals(18 + 1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'DONE' "
                + "AND outcome_status = 200 AND call_class = 2", HistoryGate.LIMIT),
                "each request reported (and the warm-up)");
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_slot WHERE limit_name = ? "
                + "AND vendor_reported_at IS NOT NULL", HistoryGate.LIMIT), "the vendor's own count reached the gate");
    }
}
