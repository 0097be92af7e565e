package dev.gate.it;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Gate;
import dev.gate.api.GateException;
import dev.gate.api.GateLimits;
import jakarta.ejb.EJBAccessException;
import dev.gate.api.LimitSpec;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.Permit;
import dev.gate.api.UnknownLimitException;
import dev.gate.dev.LimitRow;
import dev.gate.dev.SendLog;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.naming.InitialContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Java application deployed beside the gate (its own WAR, with only the gate's client classes) waits in the line
 * through the {@link Gate} EJB, found by its documented portable JNDI name. The send log in PostgreSQL is the judge.
 */
@ExtendWith(ArquillianExtension.class)
class GateBesideIT {

    // not GateDeployedAlone: the gate and, beside it, an application of its own
    @Deployment(name = "gate", order = 1, testable = false)
    static EnterpriseArchive gateEar() {
        return BuiltEar.read();
    }

    @Deployment(name = "beside", order = 2)
    static WebArchive beside() {
        return ShrinkWrap.create(WebArchive.class, "beside.war")
                .addPackage(Gate.class.getPackage())
                .addClasses(ServerTables.class, LimitRow.class, SendLog.class, SendLog.Send.class, AsOperator.class,
                        AsCaller.class, Api.class, Api.Answer.class);
    }

    private static AsOperator asOperator() throws Exception {
        return (AsOperator) new InitialContext().lookup("java:module/AsOperator");
    }

    /** The gate as this application calls it: through its component that runs as caller. */
    private static Gate lookupGate() throws Exception {
        return (Gate) new InitialContext().lookup("java:module/AsCaller!dev.gate.api.Gate");
    }

    @Test
    @OperateOnDeployment("beside")
    void permitsFromSeveralThreadsAreSpacedByTheGapAndNoWindowHoldsMoreThanTheLimit() throws Exception {
        String limit = "it-pace";
        int calls = 5;
        Duration window = Duration.ofSeconds(1);
        Duration gap = window.dividedBy(calls);
        ServerTables.limit(limit, calls, window);
        Gate gate = lookupGate();

        int threads = 4;
        int perThread = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Permit>>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                List<Permit> mine = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    Permit p = gate.acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(60));
                    mine.add(p);
                    gate.complete(p, 200);
                }
                return mine;
            }));
        }
        List<Permit> permits = new ArrayList<>();
        for (Future<List<Permit>> f : results) {
            permits.addAll(f.get(120, TimeUnit.SECONDS));
        }
        pool.shutdown();

        int n = threads * perThread;
        assertEquals(n, new HashSet<>(permits.stream().map(Permit::callId).toList()).size(), "one call per permit");
        List<Instant> sends = ServerTables.sendLog().sends(limit);
        assertEquals(n, sends.size(), "one send logged per permit");

        List<Instant> granted = new ArrayList<>(permits.stream().map(Permit::grantedAt).toList());
        Collections.sort(granted);
        assertEquals(sends, granted, "each permit's grant time is its logged send");

        // The beat: a late send keeps the schedule, so two sends may be closer than one gap, but never more than
        // one gap of slack accumulates: sends i < j are at least (j - i - 1) gaps apart.
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                Duration apart = Duration.between(sends.get(i), sends.get(j));
                assertTrue(apart.compareTo(gap.multipliedBy(j - i - 1)) >= 0,
                        "sends " + i + " and " + j + " are " + apart + " apart; the beat allows no less than "
                                + gap.multipliedBy(j - i - 1));
            }
        }
        assertTrue(SendLog.fullestWindow(sends, window) <= calls,
                "a window held " + SendLog.fullestWindow(sends, window) + " sends; the limit is " + calls);
        Duration span = Duration.between(sends.get(0), sends.get(n - 1));
        Duration paced = gap.multipliedBy(n - 1);
        assertTrue(span.compareTo(paced.multipliedBy(2).plusSeconds(2)) < 0,
                "the loop must send on the beat, not poll slowly: " + n + " sends took " + span
                        + " where the beat gives " + paced);
        assertEquals(0, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state <> 'DONE'",
                limit), "every call was completed");
    }

    @Test
    @OperateOnDeployment("beside")
    void aCallerNotRunningAsCallerJoinsNothingAndAPermitCompletesOnlyForItsProgram() throws Exception {
        Gate direct = (Gate) new InitialContext().lookup(Gate.JNDI_NAME);
        assertThrows(EJBAccessException.class, () -> direct.acquire("it-declared", CallClass.MANUAL,
                Duration.ofSeconds(1)), "an anonymous caller is refused, as HTTP answers 401");
        assertEquals(0, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-declared'"
                + " AND program = 'anonymous'"));
        Permit mine = lookupGate().acquire("it-declared", CallClass.MANUAL, Duration.ofSeconds(10));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE id = " + mine.callId()
                + " AND program = 'ejb'"), "a run-as caller without a principal of its own is program ejb");
        lookupGate().complete(mine, 200);

        // a permit made up for another program's call (web's, over HTTP) reports nothing for it
        long webs = Api.post("web", "/limits/it-declared/calls?waitSeconds=10", "{\"class\":\"MANUAL\"}").json()
                .getJsonNumber("id").longValue();
        Permit forged = new Permit(webs, "it-declared", CallClass.MANUAL, mine.enqueuedAt(), mine.grantedAt());
        assertThrows(GateException.class, () -> lookupGate().complete(forged, 429, Duration.ofHours(1)));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE id = " + webs
                + " AND state = 'GRANTED'"), "web's call is still web's to report");
        assertEquals(0, ServerTables.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'it-declared'"
                + " AND paused_until > clock_timestamp()"), "and nothing paused the line");
        assertEquals(204, Api.post("web", "/calls/" + webs + "/outcome", "{\"status\":200}").status());
    }

    @Test
    @OperateOnDeployment("beside")
    void aCallNotGrantedInTimeFailsWithATypedExceptionAndLeavesTheLine() throws Exception {
        String limit = "it-slow";
        ServerTables.limit(limit, 1, Duration.ofMinutes(1));
        Gate gate = lookupGate();
        Permit first = gate.acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(10));
        GateTimeoutException timeout = assertThrows(GateTimeoutException.class,
                () -> gate.acquire(limit, CallClass.INTERACTIVE, Duration.ofMillis(300)));
        assertTrue(timeout.getMessage().contains("it-slow"), timeout.getMessage());
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        assertEquals(0, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING'",
                limit), "the timed-out call has left the line");
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'CANCELLED'",
                timeout.callId()));
        gate.complete(first, 200);
    }

    @Test
    @OperateOnDeployment("beside")
    void aCallMayCarryItsOwnLeaseWithinTheBounds() throws Exception {
        ServerTables.limit("it-lease", 10, Duration.ofSeconds(1));
        Permit p = lookupGate().acquire("it-lease", CallClass.FOLLOW_UP, Duration.ofSeconds(5), Duration.ofSeconds(7));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE id = ? AND lease_ms = 7000", p.callId()));
        lookupGate().complete(p, 200);
        GateException tooShort = assertThrows(GateException.class, () -> lookupGate().acquire("it-lease",
                CallClass.FOLLOW_UP, Duration.ofSeconds(5), Duration.ofSeconds(1)));
        assertTrue(tooShort.getMessage().contains("lease"), tooShort.getMessage());
    }

    @Test
    @OperateOnDeployment("beside")
    void anOperatorDeclaresALimitWithItsOptionsThroughTheEjbApi() throws Exception {
        GateLimits direct = (GateLimits) new InitialContext().lookup(GateLimits.JNDI_NAME);
        LimitSpec spec = LimitSpec.of(10, Duration.ofSeconds(1)).withMinInterval(Duration.ofMillis(150))
                .withMoreRules(List.of(new LimitSpec.Rule(100, Duration.ofMinutes(1))))
                .withCoolDown(Duration.ofSeconds(3), List.of(Duration.ofMinutes(2), Duration.ofMinutes(5)), 4);
        assertThrows(EJBAccessException.class, () -> direct.put("it-ejb-options", spec),
                "a caller that is not an operator declares nothing");
        assertEquals(0, ServerTables.count("SELECT count(*) FROM gate_limit WHERE name = 'it-ejb-options'"));
        AsOperator limits = asOperator();
        assertTrue(limits.put("it-ejb-options", spec));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_limit WHERE name = 'it-ejb-options' AND calls = 10"
                + " AND window_ms = 1000 AND min_interval_ms = 150 AND retry_floor_ms = 3000 AND step_down_after = 4"
                + " AND cooldown_ladder_ms = '{120000,300000}'"));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_limit_rule WHERE limit_name = 'it-ejb-options'"
                + " AND calls = 100 AND window_ms = 60000"));
        Gate gate = lookupGate();
        Permit first = gate.acquire("it-ejb-options", CallClass.MANUAL, Duration.ofSeconds(5));
        gate.complete(first, 429, Duration.ofSeconds(1));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'it-ejb-options'"
                + " AND paused_until > clock_timestamp() + interval '100 seconds'"),
                "a 429 paused the limit for the ladder's first step of two minutes");
        assertFalse(limits.put("it-ejb-options", LimitSpec.of(10, Duration.ofSeconds(1))), "changed, not created");
    }

    @Test
    @OperateOnDeployment("beside")
    void aTryThroughTheEjbIsGrantedNowOrSaysWhenAndAGuardIsDeclaredThroughIt() throws Exception {
        AsOperator limits = asOperator();
        limits.put("it-try", LimitSpec.of(1, Duration.ofSeconds(2)).withAging(Duration.ofSeconds(90),
                CallClass.SCHEDULED));
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_limit WHERE name = 'it-try' "
                + "AND aging_after_ms = 90000 AND aging_up_to = 2"));
        Gate gate = lookupGate();
        Attempt first = gate.tryAcquire("it-try", CallClass.INTERACTIVE);
        assertTrue(first.isGranted(), first.toString());
        gate.complete(first.permit(), 200);
        Attempt second = gate.tryAcquire("it-try", CallClass.INTERACTIVE, CallOptions.NONE.withLease(
                Duration.ofSeconds(10)));
        assertFalse(second.isGranted());
        assertTrue(second.retryAfter().compareTo(Duration.ZERO) > 0
                && second.retryAfter().compareTo(Duration.ofMillis(2_010)) <= 0, second.toString());
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-try'"),
                "the refused try left nothing");
        assertThrows(UnknownLimitException.class, () -> gate.tryAcquire("no-such-limit", CallClass.BACKFILL));
    }

    @Test
    @OperateOnDeployment("beside")
    void aConsumingTryThroughTheEjbEndsItsCallAtOnce() throws Exception {
        asOperator().put("it-consume", LimitSpec.of(1, Duration.ofSeconds(60)));
        Gate gate = lookupGate();
        Attempt first = gate.tryConsume("it-consume", CallClass.INTERACTIVE);
        assertTrue(first.isGranted(), first.toString());
        assertEquals(0, ServerTables.count("SELECT count(*) FROM gate_call WHERE limit_name = 'it-consume'"),
                "no call row: ended at its grant, nothing to report, nothing to find by a key");
        GateException report = assertThrows(GateException.class, () -> gate.complete(first.permit(), 200));
        assertTrue(report.getMessage().contains("DONE"), report.getMessage());
        Attempt second = gate.tryConsume("it-consume", CallClass.INTERACTIVE, CallOptions.NONE.withCost(1));
        assertFalse(second.isGranted(), "one a minute: " + second);
        assertEquals(1, ServerTables.count("SELECT count(*) FROM gate_send WHERE limit_name = 'it-consume' "
                + "AND call_id = " + first.permit().callId() + " AND call_class = 0 AND owner IS NOT NULL"),
                "one send in the send log, recording the consume");
    }

    @Test
    @OperateOnDeployment("beside")
    void anUnknownLimitIsATypedError() throws Exception {
        Gate gate = lookupGate();
        assertThrows(UnknownLimitException.class,
                () -> gate.acquire("no-such-limit", CallClass.BACKFILL, Duration.ofSeconds(1)));
        assertThrows(UnknownLimitException.class,
                () -> gate.acquire("not a name", CallClass.BACKFILL, Duration.ofSeconds(1)));
    }

    @Test
    @OperateOnDeployment("beside")
    void limitsDeclaredAtDeploymentAreInTheTable() throws Exception {
        // arquillian.xml starts the server with -Dgate.limits=it-declared=5/1s
        assertEquals(1, ServerTables.count(
                "SELECT count(*) FROM gate_limit WHERE name = 'it-declared' AND calls = 5 AND window_ms = 1000"));
        Permit p = lookupGate().acquire("it-declared", CallClass.MANUAL, Duration.ofSeconds(10));
        lookupGate().complete(p, 200);
    }
}
