package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GatePausedException;
import dev.gate.dev.TcpProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A try whose answer is lost after the database took it (a commit whose answer never comes): its caller hears
 * "calls are paused", so the grant it may have made must not stay granted to nobody until its lease ends. Once the
 * database answers again the instance ends it (ABANDONED), found by the try's own key. Real PostgreSQL behind a TCP
 * proxy that drops the answer.
 */
class LostTryAnswerTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    /** The slot loop never runs (nothing else talks to the database); the housekeeping ticks when the test says. */
    private static final class ManualTicks extends ScheduledThreadPoolExecutor {
        final List<Runnable> periodic = new CopyOnWriteArrayList<>();

        ManualTicks() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return super.schedule(command, 365, TimeUnit.DAYS);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                         TimeUnit unit) {
            periodic.add(command);
            return super.schedule(() -> { }, 365, TimeUnit.DAYS);
        }

        void tick() {
            periodic.forEach(Runnable::run);
        }
    }

    /** One take of a slot: the granted call's id, or empty when not granted; "paused" when its answer is lost. */
    @FunctionalInterface
    private interface Take {
        java.util.Optional<Long> take(Engine gate, String limit) throws Exception;
    }

    @Test
    void aTryWhoseAnswerIsLostIsEndedOnceTheDatabaseAnswersNotLeftGrantedToNobody() throws Exception {
        lostAnswerIsEnded("try:", (gate, limit) -> {
            Attempt a = gate.callers().tryNow(limit, CallClass.INTERACTIVE, "inbound", CallOptions.NONE);
            return a.isGranted() ? java.util.Optional.of(a.permit().callId()) : java.util.Optional.empty();
        });
    }

    @Test
    void aFreeLineGrantWhoseAnswerIsLostIsEndedOnceTheDatabaseAnswersNotLeftGrantedToNobody() throws Exception {
        // an acquire on a free line is granted by the same one statement: its lost answer is healed the same way
        lostAnswerIsEnded("free:", (gate, limit) -> java.util.Optional.of(gate.callers().acquire(limit,
                CallClass.INTERACTIVE, Duration.ofSeconds(1), "inbound", CallOptions.NONE).callId()));
    }

    @Test
    void aConsumingTryWhoseAnswerIsLostSentAgainWithItsKeyGetsItsConsumptionAndNoSecondSend() throws Exception {
        BehindProxy behind = behindProxy();
        TcpProxy proxy = behind.proxy();
        ManualTicks ticks = behind.ticks();
        Engine gate = behind.gate();
        String limit = "lost-try";
        for (int attempt = 1; ; attempt++) {
            assertTrue(attempt <= 5, "the lost answer never fell on a consuming try");
            assertTrue(gate.programs().tryNow("inbound", limit, CallClass.INTERACTIVE, CallOptions.NONE,
                    "warm-" + attempt, true).attempt().isGranted());
            Thread.sleep(5); // a gap is 1 ms
            String key = "request-" + attempt;
            proxy.loseAnswers(1);
            try {
                gate.programs().tryNow("inbound", limit, CallClass.INTERACTIVE, CallOptions.NONE, key, true);
                proxy.loseAnswers(0); // the lost answer fell on another connection: try again
                ticks.tick();
                continue;
            } catch (GatePausedException e) {
                assertTrue(e.getMessage().startsWith("calls are paused"), e.getMessage());
            }
            ticks.tick(); // the database answers again
            if (copies.count("SELECT count(*) FROM gate_call WHERE submission_key = ?", key) == 0) {
                continue; // the answer lost was not the try's own (its statement never ran): nothing consumed
            }
            // the program sends it again with its key, as gate-client does after a lost answer
            ProgramCalls.Tried again = gate.programs().tryNow("inbound", limit, CallClass.INTERACTIVE,
                    CallOptions.NONE, key, true);
            assertTrue(again.attempt().isGranted() && again.repeated(), "the consumption the lost answer carried");
            long id = again.attempt().permit().callId();
            assertEquals("DONE", copies.state(id));
            assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", id), "no second send");
            assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE submission_key = ?", key));
            break;
        }
    }

    @Test
    void aGroupOfTriesWhoseAnswerIsLostHasEachGrantEndedOnceTheDatabaseAnswers() throws Exception {
        groupLostAnswerIsEnded("try:", gate -> gate.tryNow().together().groups(), (gate, limit, c) -> {
            Attempt a = gate.callers().tryNow(limit, c, "inbound", CallOptions.NONE);
            return a.isGranted() ? java.util.Optional.of(a.permit().callId()) : java.util.Optional.empty();
        });
    }

    @Test
    void aGroupOnTheFreeLineWhoseAnswerIsLostHasEachGrantEndedOnceTheDatabaseAnswers() throws Exception {
        groupLostAnswerIsEnded("free:", gate -> gate.joining().freeLine().groups(), (gate, limit, c) ->
                java.util.Optional.of(gate.callers().acquire(limit, c, Duration.ofSeconds(1), "inbound",
                        CallOptions.NONE).callId()));
    }

    /** One take of a group's member, of {@code callClass}: as {@link Take}. */
    @FunctionalInterface
    private interface GroupTake {
        java.util.Optional<Long> take(Engine gate, String limit, CallClass callClass) throws Exception;
    }

    private void groupLostAnswerIsEnded(String keyPrefix, java.util.function.Function<Engine, JoinGroups<?, ?>> groupsOf,
                                        GroupTake take) throws Exception {
        BehindProxy behind = behindProxy();
        TcpProxy proxy = behind.proxy();
        ManualTicks ticks = behind.ticks();
        Engine gate = behind.gate();
        String limit = "lost-try";
        JoinGroups<?, ?> groups = groupsOf.apply(gate);
        List<CallClass> classes = List.of(CallClass.INTERACTIVE, CallClass.MANUAL, CallClass.SCHEDULED);
        for (int attempt = 1; ; attempt++) {
            assertTrue(attempt <= 5, "the lost answer never fell on a group");
            long warm = gate.callers().tryNow(limit, CallClass.INTERACTIVE, "inbound", CallOptions.NONE).permit()
                    .callId();
            gate.callers().complete(warm, 200);
            Thread.sleep(5); // a gap is 1 ms
            java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
            groups.holdLeaders(hold);
            java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(3);
            List<java.util.concurrent.Future<java.util.Optional<Long>>> answers = new java.util.ArrayList<>();
            try {
                for (CallClass c : classes) {
                    answers.add(callers.submit(() -> take.take(gate, limit, c)));
                    int n = answers.size();
                    GateCopies.await(n + " tries gathered", Duration.ofSeconds(10), () -> groups.waiting(limit) == n);
                }
                proxy.loseAnswers(1);
                hold.countDown();
                groups.holdLeaders(null);
                int paused = 0;
                for (java.util.concurrent.Future<java.util.Optional<Long>> f : answers) {
                    try {
                        java.util.Optional<Long> granted = f.get(30, TimeUnit.SECONDS);
                        if (granted.isPresent()) {
                            gate.callers().complete(granted.get(), 200);
                        }
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertTrue(e.getCause() instanceof GatePausedException, String.valueOf(e.getCause()));
                        paused++;
                    }
                }
                proxy.loseAnswers(0);
                if (paused == 0 || lost(keyPrefix, "GRANTED") == 0) {
                    ticks.tick(); // the lost answer fell elsewhere, or before the group's statement ran
                    continue;
                }
                assertEquals(3, paused, "the whole group hears the lost answer");
                assertEquals(3, lost(keyPrefix, "GRANTED"), "the group was committed; its answer was lost");
                ticks.tick(); // the database answers again: the instance ends what its lost group made
                assertEquals(0, lost(keyPrefix, "GRANTED"));
                assertEquals(3, lost(keyPrefix, "ABANDONED"), "each ended at once, not at its lease's end");
                break;
            } finally {
                callers.shutdownNow();
            }
        }
        assertTrue(gate.callers().tryNow(limit, CallClass.INTERACTIVE, "inbound", CallOptions.NONE).isGranted(),
                "the gate is back");
    }

    /**
     * A copy whose link runs through a proxy that can drop answers, its ticks by hand, and its limit of 1,000/s
     * (three at one moment).
     */
    private record BehindProxy(TcpProxy proxy, ManualTicks ticks, Engine gate) {
    }

    private BehindProxy behindProxy() throws Exception {
        TcpProxy proxy = copies.proxy();
        ManualTicks ticks = new ManualTicks();
        Engine gate = copies.start("lost-try", GateCopies.FAST, ticks, copies.poolThrough(proxy));
        // a burst of 3: a group is decided at one moment, and three sends at one moment need it
        copies.limit("lost-try", 1000, Duration.ofSeconds(1), "burst", 3);
        return new BehindProxy(proxy, ticks, gate);
    }

    private void lostAnswerIsEnded(String keyPrefix, Take take) throws Exception {
        BehindProxy behind = behindProxy();
        TcpProxy proxy = behind.proxy();
        ManualTicks ticks = behind.ticks();
        Engine gate = behind.gate();
        String limit = "lost-try";

        // the lost answer must be the take's: a connection's first use (its session settings) or a pool's check may
        // take it instead, then nothing was granted and the test tries again once the gate is back
        for (int attempt = 1; ; attempt++) {
            assertTrue(attempt <= 5, "the lost answer never fell on a take");
            long warm = take.take(gate, limit).orElseThrow();
            gate.callers().complete(warm, 200);
            Thread.sleep(5); // a gap is 1 ms
            proxy.loseAnswers(1);
            GatePausedException paused;
            try {
                java.util.Optional<Long> unharmed = take.take(gate, limit);
                // the lost answer fell on another connection (the grant listener's notice of the last outcome, not
                // yet through the proxy): this take went through; try again
                proxy.loseAnswers(0);
                if (unharmed.isPresent()) {
                    gate.callers().complete(unharmed.get(), 200);
                }
                ticks.tick();
                continue;
            } catch (GatePausedException e) {
                paused = e;
            }
            assertTrue(paused.getMessage().startsWith("calls are paused"), paused.getMessage());
            long grantedToNobody = lost(keyPrefix, "GRANTED");
            if (grantedToNobody == 0) {
                ticks.tick(); // the gate comes back; nothing to end
                continue;
            }
            assertEquals(1, grantedToNobody, "the take was committed; its answer was lost");
            ticks.tick(); // the database answers again: the instance ends what its lost take made
            assertEquals(0, lost(keyPrefix, "GRANTED"));
            assertEquals(1, lost(keyPrefix, "ABANDONED"), "ended at once, not at its lease's end (30 s)");
            break;
        }
        assertTrue(take.take(gate, limit).isPresent(), "the gate is back");
    }

    private long lost(String keyPrefix, String state) throws SQLException {
        return copies.count("SELECT count(*) FROM gate_call WHERE limit_name = 'lost-try' AND state = ? "
                + "AND submission_key LIKE ? AND outcome_status IS NULL", state, keyPrefix + "%");
    }
}
