package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.SubmissionKeyReusedException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program's retry after a lost answer: a submission sent again with its submission key finds the call the first
 * try made (on any copy, whatever became of it), and never adds a second call to the line.
 */
class SubmissionKeyTest extends OnTwoCopies {

    @Test
    void aSubmissionSentAgainWithItsKeyAnswersTheSameCallOnAnyCopy() throws Exception {
        String limit = "retried";
        copies.limit(limit, 1, Duration.ofMinutes(1));
        ProgramCalls.Submitted first = a.programs().submit("worker", limit, CallClass.SCHEDULED, CallOptions.NONE,
                null, "key-1");
        ProgramCalls.Submitted second = a.programs().submit("worker", limit, CallClass.SCHEDULED, CallOptions.NONE,
                null, "key-2");
        ProgramCalls.Submitted again = b.programs().submit("worker", limit, CallClass.SCHEDULED, CallOptions.NONE,
                null, "key-2");
        assertFalse(first.repeated() || second.repeated());
        assertTrue(again.repeated(), "the retry is told it repeated a submission");
        assertEquals(second.call().id(), again.call().id());
        assertEquals(second.call().state(), again.call().state());
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));

        // the key belongs to the program: another program's key of the same text is its own
        ProgramCalls.Submitted other = a.programs().submit("reporter", limit, CallClass.SCHEDULED, CallOptions.NONE,
                null, "key-2");
        assertFalse(other.repeated());
        assertNotEquals(second.call().id(), other.call().id());

        // an ended call still answers: a late retry learns what became of its call, and adds nothing
        assertTrue(a.programs().cancel("worker", second.call().id()));
        ProgramCalls.Submitted late = b.programs().submit("worker", limit, CallClass.SCHEDULED, CallOptions.NONE,
                null, "key-2");
        assertEquals(second.call().id(), late.call().id());
        assertEquals("CANCELLED", late.call().state().name());
        assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
    }

    @Test
    void tenConcurrentRetriesOfOneSubmissionMakeOneCall() throws Exception {
        String limit = "retried-at-once";
        copies.limit(limit, 1, Duration.ofMinutes(1));
        Set<Long> ids = new HashSet<>();
        int repeated = 0;
        for (ProgramCalls.Submitted s : tenAtOnce(copy -> copy.programs().submit("worker", limit, CallClass.BACKFILL,
                CallOptions.NONE, null, "once"))) {
            ids.add(s.call().id());
            repeated += s.repeated() ? 1 : 0;
        }
        assertEquals(1, ids.size(), "one call for the ten tries");
        assertEquals(9, repeated);
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
    }

    @Test
    void aKeyUsedBeforeForAnotherLimitIsRefusedAndNothingJoins() throws Exception {
        copies.limit("key-one", 5, Duration.ofSeconds(1));
        copies.limit("key-two", 5, Duration.ofSeconds(1));
        a.programs().submit("worker", "key-one", CallClass.SCHEDULED, CallOptions.NONE, null, "k");
        SubmissionKeyReusedException e = assertThrows(SubmissionKeyReusedException.class, () -> b.programs()
                .submit("worker", "key-two", CallClass.SCHEDULED, CallOptions.NONE, null, "k"));
        assertTrue(e.getMessage().contains("key-one"), e.getMessage());
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = 'key-two'"));
    }

    @Test
    void aDedupeJoinersRetryFindsTheCallItJoinedWhileItLivesAndAfterItEnded() throws Exception {
        // a joiner's submission key was not kept: its retry while the call lived was recorded as a second joiner,
        // and after the call ended it made a new call, a second send to the vendor
        String limit = "retried-joiner";
        copies.limit(limit, 1, Duration.ofMinutes(1));
        a.programs().submit("filler", limit, CallClass.SCHEDULED, CallOptions.NONE, null, "fill"); // takes the slot
        ProgramCalls.Submitted first = a.programs().submit("web", limit, CallClass.SCHEDULED, CallOptions.NONE,
                "report-7", "web-1");
        ProgramCalls.Submitted joiner = b.programs().submit("app", limit, CallClass.SCHEDULED, CallOptions.NONE,
                "report-7", "app-1");
        assertTrue(joiner.joined() && !joiner.repeated());
        assertEquals(first.call().id(), joiner.call().id());

        ProgramCalls.Submitted whileItLives = a.programs().submit("app", limit, CallClass.SCHEDULED,
                CallOptions.NONE, "report-7", "app-1");
        assertTrue(whileItLives.repeated(), "the retry is told it repeated its submission");
        assertTrue(whileItLives.joined(), "... which joined the call");
        assertEquals(first.call().id(), whileItLives.call().id());
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call_joiner WHERE call_id = ?", first.call().id()),
                "one joiner, not two");
        assertEquals(1, copies.count("SELECT saved_sends FROM gate_saved WHERE limit_name = ?", limit),
                "one send saved, not two");

        assertTrue(a.programs().cancel("web", first.call().id()));
        ProgramCalls.Submitted afterItEnded = b.programs().submit("app", limit, CallClass.SCHEDULED,
                CallOptions.NONE, "report-7", "app-1");
        assertTrue(afterItEnded.repeated() && afterItEnded.joined());
        assertEquals(first.call().id(), afterItEnded.call().id());
        assertEquals("CANCELLED", afterItEnded.call().state().name(), "it learns what became of the call it joined");
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit),
                "no new call: the filler's and the shared one");
    }

    @Test
    void tenConcurrentRetriesOfOneJoinerRecordOneJoiner() throws Exception {
        String limit = "retried-joiner-at-once";
        copies.limit(limit, 1, Duration.ofMinutes(1));
        a.programs().submit("filler", limit, CallClass.SCHEDULED, CallOptions.NONE, null, "fill");
        long shared = a.programs().submit("web", limit, CallClass.SCHEDULED, CallOptions.NONE, "d", "web-1").call()
                .id();
        int repeated = 0;
        for (ProgramCalls.Submitted s : tenAtOnce(copy -> copy.programs().submit("app", limit, CallClass.SCHEDULED,
                CallOptions.NONE, "d", "app-1"))) {
            assertEquals(shared, s.call().id());
            assertTrue(s.joined());
            repeated += s.repeated() ? 1 : 0;
        }
        assertEquals(9, repeated);
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call_joiner WHERE call_id = ?", shared));
        assertEquals(1, copies.count("SELECT saved_sends FROM gate_saved WHERE limit_name = ?", limit));
    }

    /** A submission's step that may throw, on one copy. */
    private interface OnCopy {
        ProgramCalls.Submitted submit(Engine copy) throws Exception;
    }

    /** The same submission ten times at once, from both copies in turn: what each was told. */
    private List<ProgramCalls.Submitted> tenAtOnce(OnCopy submission) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(10);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ProgramCalls.Submitted>> tries = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Engine copy = i % 2 == 0 ? a : b;
            tries.add(pool.submit(() -> {
                start.await();
                return submission.submit(copy);
            }));
        }
        start.countDown();
        List<ProgramCalls.Submitted> told = new ArrayList<>();
        for (Future<ProgramCalls.Submitted> f : tries) {
            told.add(f.get(20, TimeUnit.SECONDS));
        }
        pool.shutdown();
        return told;
    }
}
