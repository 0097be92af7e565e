package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.Permit;
import dev.gate.dev.TcpProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Outcomes reported together are recorded together: the common ones in one statement and one commit, every other in
 * a transaction of its own, and each caller told what the database holds, as alone: a call reported twice at once is
 * recorded once (the second report hears it was), a call that is not granted is its caller's error alone, and a
 * group whose answer is lost has each caller told "calls are paused" and, reporting again, that it is recorded.
 */
class GroupRecordingTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void outcomesThatMeetAreRecordedInOneCommitAndEachCallerHearsWhatTheDatabaseHolds() throws Exception {
        Engine gate = copies.start("recorder");
        copies.limit("roomy", 1000, Duration.ofSeconds(1), "burst", 50);
        List<Permit> p = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            p.add(acquire(gate, CallOptions.NONE));
        }
        Permit keyed = acquire(gate, CallOptions.NONE.withConcurrencyKey("account-7"));
        long grouped = gate.recording().grouped();
        List<Object> answers = together(gate, List.of(
                () -> complete(gate, p.get(0).callId(), 200),
                () -> complete(gate, p.get(1).callId(), 500), // a failure that cools nothing: common too
                () -> complete(gate, p.get(2).callId(), 204),
                () -> complete(gate, p.get(2).callId(), 204), // the same report twice at once
                () -> complete(gate, keyed.callId(), 200), // frees its key: a transaction of its own
                () -> complete(gate, 987_654_321L, 200), // no such call
                () -> complete(gate, p.get(3).callId(), 201),
                () -> complete(gate, p.get(3).callId(), 503))); // two outcomes of one call at once: the first holds
        assertEquals(grouped + 8, gate.recording().grouped(), "all eight reported as one group");
        assertEquals(List.of("recorded", "recorded", "recorded", "recorded", "recorded"), answers.subList(0, 5),
                "each told its outcome is recorded; the report sent twice at once, too");
        assertTrue(answers.get(5) instanceof GateException e && e.getMessage().contains("cannot be completed"),
                "a call that is not granted is its caller's error alone: " + answers.get(5));
        assertEquals("recorded", answers.get(6));
        assertTrue(answers.get(7) instanceof GateException e && e.getMessage().contains("it is DONE"),
                "the other outcome of a call already done is refused, as alone: " + answers.get(7));
        assertEquals(List.of(200L, 500L, 204L, 201L, 200L), copies.ids("SELECT outcome_status FROM gate_call "
                + "WHERE id IN (?, ?, ?, ?, ?) AND state = 'DONE' ORDER BY id", p.get(0).callId(), p.get(1).callId(),
                p.get(2).callId(), p.get(3).callId(), keyed.callId()), "the database holds each outcome, once");
        assertEquals(1, copies.count("SELECT count(DISTINCT xmin::text) FROM gate_call WHERE id IN (?, ?, ?, ?)",
                p.get(0).callId(), p.get(1).callId(), p.get(2).callId(), p.get(3).callId()),
                "the common ones in one commit");
        Permit next = acquire(gate, CallOptions.NONE.withConcurrencyKey("account-7"));
        gate.callers().complete(next.callId(), 200); // the key was freed
    }

    @Test
    void aGroupWhoseAnswerIsLostHasEachCallerToldPausedAndReportingAgainToldItIsRecorded() throws Exception {
        TcpProxy proxy = copies.proxy();
        Engine gate = copies.start("lost-outcomes", GateCopies.FAST, new ScheduledThreadPoolExecutor(2),
                copies.poolThrough(proxy));
        copies.limit("roomy", 1000, Duration.ofSeconds(1), "burst", 50);
        for (int attempt = 1; ; attempt++) {
            assertTrue(attempt <= 5, "the lost answer never fell on a group");
            List<Permit> p = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                p.add(acquire(gate, CallOptions.NONE));
            }
            List<Callable<Object>> reports = new ArrayList<>();
            for (Permit permit : p) {
                reports.add(() -> complete(gate, permit.callId(), 200));
            }
            List<Object> answers = together(gate, reports, () -> proxy.loseAnswers(1));
            proxy.loseAnswers(0);
            long paused = answers.stream().filter(a -> a instanceof GatePausedException).count();
            GateCopies.await("the gate to be back", Duration.ofSeconds(30), () -> !gate.paused());
            if (paused == 0) {
                continue; // the lost answer fell on another connection's statement
            }
            assertEquals(3, paused, "the whole group hears the lost answer: " + answers);
            assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE id IN (?, ?, ?) AND state = 'DONE' "
                    + "AND outcome_status = 200", p.get(0).callId(), p.get(1).callId(), p.get(2).callId()),
                    "the group was committed; its answer was lost");
            for (Permit permit : p) {
                assertEquals("recorded", complete(gate, permit.callId(), 200), "reported again: recorded");
            }
            assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE id IN (?, ?, ?) AND state = 'DONE' "
                    + "AND outcome_status = 200", p.get(0).callId(), p.get(1).callId(), p.get(2).callId()));
            break;
        }
    }

    private static Permit acquire(Engine gate, CallOptions options) throws GateException {
        return gate.callers().acquire("roomy", CallClass.SCHEDULED, Duration.ofSeconds(5), "worker", options);
    }

    /** A report of the outcome: "recorded", or the exception its caller heard. */
    private static Object complete(Engine gate, long callId, int status) {
        try {
            gate.callers().complete(callId, status);
            return "recorded";
        } catch (GateException e) {
            return e;
        }
    }

    private static List<Object> together(Engine gate, List<Callable<Object>> reports) throws Exception {
        return together(gate, reports, () -> { });
    }

    /** {@code reports} recorded as one group ({@code before} runs once they have gathered); their answers, in order. */
    private static List<Object> together(Engine gate, List<Callable<Object>> reports, Runnable before)
            throws Exception {
        return Gathering.together(gate.recording().groups(), GroupRecording.group(), reports, before);
    }
}
