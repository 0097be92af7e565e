package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.DeadlineException;
import dev.gate.api.InvalidLimitException;
import dev.gate.api.LimitSpec;
import dev.gate.domain.Estimate;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys under a parent limit, on the real clock: a key's call goes only when it fits its key's window and the
 * parent's; the parent's window holds over its own calls and every key's; a busy key does not hold an idle key
 * back beyond the parent's pace.
 */
class ParentLimitTest extends OnOneCopy {

    private static final CallOptions STORE_A = CallOptions.NONE.withLimitKey("store-a");
    private static final CallOptions STORE_B = CallOptions.NONE.withLimitKey("store-b");

    // Where every call takes one of the parent's slots (its own and its keys'), the calls granted while a call waited
    // are the parent's slots that went to others first: counted on the database's clock, whatever the box's speed.
    private static final String GRANTED_WHILE_IT_WAITED = """
            SELECT count(*) FROM gate_call o, gate_call c
            WHERE c.id = ? AND o.id <> c.id AND o.granted_at > c.enqueued_at AND o.granted_at < c.granted_at""";

    // The calls that had joined before a call and were granted after it.
    private static final String WENT_AHEAD_OF = """
            SELECT count(*) FROM gate_call o, gate_call c
            WHERE c.id = ? AND o.enqueued_at < c.enqueued_at AND o.granted_at > c.granted_at""";

    @Test
    void twoKeysUnderAParentEachWindowHoldsAndAnIdleKeyGoesAtTheParentsPace() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.limits().put("store", LimitSpec.of(6, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            all.add(submit("store", STORE_A)); // a busy key: five seconds of its own rate
        }
        for (int i = 0; i < 20; i++) {
            all.add(submit("vendor", CallOptions.NONE)); // the parent's own line: the parent is full
        }
        List<Long> callsB = new ArrayList<>();
        List<Long> waitsB = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread.sleep(1_000); // the key stays idle a while: its own slot long due
            long id = submit("store", STORE_B); // an idle key, now and then
            all.add(id);
            callsB.add(id);
            GateCopies.await("store-b's call granted", Duration.ofSeconds(5), () -> copies.state(id).equals("GRANTED"));
            waitsB.add(copies.count("SELECT (extract(epoch FROM granted_at - enqueued_at) * 1000)::bigint "
                    + "FROM gate_call WHERE id = ?", id));
        }
        GateCopies.await("every call granted", Duration.ofSeconds(20), () -> all.stream().allMatch(
                id -> copies.state(id).equals("GRANTED")));
        int keyA = GateCopies.fullestWindow(copies.sends("store~store-a"), Duration.ofSeconds(1));
        int keyB = GateCopies.fullestWindow(copies.sends("store~store-b"), Duration.ofSeconds(1));
        int parent = GateCopies.fullestWindow(copies.sends("vendor"), Duration.ofSeconds(1));
        List<Long> grantedWhileB = new ArrayList<>();
        for (long id : callsB) {
            grantedWhileB.add(copies.count(GRANTED_WHILE_IT_WAITED, id));
        }
        long wentAhead = copies.count(WENT_AHEAD_OF, callsB.get(0));
        System.out.printf("keys under a parent of 10/s: fullest 1 s window key a %d (of 6), key b %d, parent %d "
                + "(of 10); the idle key's waits %s ms, calls granted while it waited %s, calls it went ahead of %d%n",
                keyA, keyB, parent, waitsB, grantedWhileB, wentAhead);
        assertEquals(6, keyA, "the busy key's own window holds, and is used");
        assertTrue(keyB <= 6);
        assertEquals(10, parent, "the parent's window holds over its own calls and both keys', and is used");
        assertEquals(54, copies.sends("vendor").size(), "each key's grant took one of the parent's sends");
        // what the vendor sees: every grant, the parent's own calls and both keys', never more than 10 in a second
        List<java.time.Instant> granted = new ArrayList<>();
        for (long us : copies.ids("SELECT (extract(epoch FROM granted_at) * 1000000)::bigint FROM gate_call")) {
            granted.add(java.time.Instant.ofEpochSecond(0, us * 1000));
        }
        granted.sort(null);
        assertEquals(10, GateCopies.fullestWindow(granted, Duration.ofSeconds(1)), "the vendor's view");
        // the idle key goes at the parent's pace, counted in the parent's slots rather than in milliseconds (a busy box
        // stretches the milliseconds, not the order): while its call waited, the slot under way as it joined went to
        // another call, and the next one at most (a join the box holds up past a slot); behind the busy key's line
        // or the parent's own it would see dozens go first
        assertTrue(wentAhead > 0, "the idle key's first call went ahead of the calls waiting as it joined");
        for (long meanwhile : grantedWhileB) {
            assertTrue(meanwhile <= 2, "calls granted while the idle key's calls waited: " + grantedWhileB);
        }
    }

    @Test
    void fiftyKeysEachWithACallShareTheParentsSlotsInTurn() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(20, Duration.ofSeconds(1)));
        gate.limits().put("store", LimitSpec.of(5, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ids.add(submit("store", CallOptions.NONE.withLimitKey("store-" + i)));
        }
        long t0 = System.nanoTime();
        GateCopies.await("all fifty granted at the parent's pace", Duration.ofSeconds(10), () -> ids.stream()
                .allMatch(id -> copies.state(id).equals("GRANTED")));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        int parent = GateCopies.fullestWindow(copies.sends("vendor"), Duration.ofSeconds(1));
        System.out.printf("fifty keys under a parent of 20/s: all granted %d ms after the last joined; the parent's "
                + "fullest second %d%n", ms, parent);
        assertEquals(20, parent, "the parent's window holds, and is used");
        assertEquals(50, copies.sends("vendor").size());
    }

    @Test
    void theVendorsSlowDownOnAKeysCallPausesTheParentForEveryone() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.limits().put("store", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        long id = submit("store", STORE_A);
        GateCopies.await("granted", Duration.ofSeconds(5), () -> copies.state(id).equals("GRANTED"));
        gate.programs().outcome("p", id, 429, 2);
        assertTrue(gate.limits().status("vendor").orElseThrow().getPausedUntil() != null, "the parent pauses");
        assertEquals(1, gate.limits().status("vendor").orElseThrow().getCoolDownStep());
        long own = submit("vendor", CallOptions.NONE);
        long other = submit("store", STORE_B);
        Thread.sleep(1_000);
        assertEquals("WAITING", copies.state(own), "the parent's own calls wait out the pause");
        assertEquals("WAITING", copies.state(other), "and so do its other keys'");
        GateCopies.await("both granted once the 2 s pause ends", Duration.ofSeconds(5),
                () -> copies.state(own).equals("GRANTED") && copies.state(other).equals("GRANTED"));
    }

    @Test
    void aParentIsAPlainLimitAndItsPauseHoldsItsKeys() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.limits().put("users", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true));
        assertThrows(InvalidLimitException.class, () -> gate.limits().put("store",
                LimitSpec.of(6, Duration.ofSeconds(1)).withKeyed(true).withParent("nobody")));
        assertThrows(InvalidLimitException.class, () -> gate.limits().put("store",
                LimitSpec.of(6, Duration.ofSeconds(1)).withKeyed(true).withParent("users")), "a keyed parent");
        assertThrows(InvalidLimitException.class, () -> gate.limits().put("store",
                LimitSpec.of(6, Duration.ofSeconds(1)).withParent("vendor")), "a parent for a limit without keys");
        gate.limits().put("store", LimitSpec.of(6, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        assertThrows(InvalidLimitException.class, () -> gate.limits().put("vendor",
                LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true)), "a parent stays a plain limit");
        assertEquals("vendor", gate.limits().status("store").orElseThrow().getParent());
        InvalidLimitException kept = assertThrows(InvalidLimitException.class,
                () -> gate.limits().remove("vendor", "ops"));
        assertTrue(kept.getMessage().contains("parent of [store]"), kept.getMessage());
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call"));
        // a paused parent holds its keys' calls too
        gate.operators().pause("vendor", Duration.ofSeconds(2), "ops");
        long id = submit("store", STORE_A);
        Thread.sleep(500);
        assertEquals("WAITING", copies.state(id), "the parent's pause holds the key");
        GateCopies.await("granted once the pause ends", Duration.ofSeconds(5),
                () -> copies.state(id).equals("GRANTED"));
    }

    @Test
    void aKeysCallCannotExpectItsGrantBeforeItsParentsPauseEnds() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.limits().put("store", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        gate.operators().pause("vendor", Duration.ofSeconds(30), "ops");
        DeadlineException refused = assertThrows(DeadlineException.class, () -> gate.programs().submit("p", "store",
                CallClass.INTERACTIVE, STORE_A.withDeadline(Duration.ofSeconds(2)), null));
        assertTrue(refused.estimatedWait().compareTo(Duration.ofSeconds(25)) > 0, refused.getMessage());
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name LIKE 'store~%'"),
                "nothing joined");
        long waiting = submit("store", STORE_B);
        Instant pausedUntil = gate.limits().status("vendor").orElseThrow().getPausedUntil();
        Estimate estimate = gate.programs().estimate(waiting).orElseThrow();
        assertFalse(estimate.grantAt().isBefore(pausedUntil), "estimated " + estimate.grantAt() + ", the parent is "
                + "paused until " + pausedUntil);
    }

    /**
     * A key's burst goes once its parent's slot comes, paced by the parent's beat; the estimate of a call behind
     * another on the key says no later than that (random histories, seed 105153: the parent's slot read as the key's
     * own beat put the estimate a key's gap after the grant).
     */
    @Test
    void aKeysBurstGoesOnceItsParentsSlotComesAndItsEstimateIsNoLater() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(3, Duration.ofSeconds(1)).withReceiptMargin(Duration.ZERO));
        gate.limits().put("store", LimitSpec.of(2, Duration.ofSeconds(3)).withReceiptMargin(Duration.ZERO)
                .withBurst(2).withKeyed(true).withParent("vendor"));
        long own = gate.callers().acquire("vendor", CallClass.INTERACTIVE, Duration.ofSeconds(5), "p",
                CallOptions.NONE).callId(); // the parent's next slot is a gap (333 ms) ahead
        long first = submit("store", STORE_A);
        long second = submit("store", STORE_A);
        Estimate estimate = gate.programs().estimate(second).orElseThrow();
        GateCopies.await("both granted", Duration.ofSeconds(10), () -> copies.state(second).equals("GRANTED"));
        Instant firstAt = gate.programs().own("p", first).orElseThrow().grantedAt();
        Instant secondAt = gate.programs().own("p", second).orElseThrow().grantedAt();
        assertTrue(Duration.between(firstAt, secondAt).compareTo(Duration.ofMillis(1_500)) < 0,
                "the key's burst: less than its gap of 1.5 s apart, " + firstAt + " and " + secondAt);
        assertFalse(secondAt.isBefore(estimate.grantAt()), "granted at " + secondAt + ", before its estimate of "
                + estimate.grantAt() + " (read at " + estimate.now() + ", position " + estimate.position() + ")");
        gate.callers().complete(own, 200);
    }

    @Test
    void triesOnKeysUnderAParentHoldEachKeysWindowAndTheParentsAndNoSendComesBeforeItsSlot() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.limits().put("store", LimitSpec.of(6, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        List<Instant> grants = GateCopies.tryAtOnce(gate, "store", 8, Duration.ofMillis(2_500),
                t -> CallOptions.NONE.withLimitKey("store-" + t % 4),
                a -> assertTrue(a.retryAfter().compareTo(Duration.ofMillis(500)) < 0, a.toString()));
        List<Instant> parentSends = copies.sends("vendor");
        int parent = GateCopies.fullestWindow(parentSends, Duration.ofSeconds(1));
        int fullestKey = 0;
        for (int k = 0; k < 4; k++) {
            fullestKey = Math.max(fullestKey, GateCopies.fullestWindow(copies.sends("store~store-" + k),
                    Duration.ofSeconds(1)));
        }
        System.out.printf("tries on 4 keys (6/s each) under a parent of 10/s, 8 threads, 2.5 s: %d granted; fullest "
                + "second: parent %d, a key %d%n", grants.size(), parent, fullestKey);
        assertEquals(grants.size(), parentSends.size(), "each grant took one of the parent's sends");
        assertTrue(parent <= 10 && parent >= 9, "the parent's window holds, and is used: " + parent);
        assertTrue(fullestKey <= 6, "each key's window holds: " + fullestKey);
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE sent_at < slot_at"),
                "no send, the parent's or a key's, before its slot");
    }

    @Test
    void aTryOnAKeyWaitsOutItsParentsPauseAndNeverJumpsTheParentsOwnLine() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.limits().put("store", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        gate.operators().pause("vendor", Duration.ofSeconds(30), "ops");
        Attempt paused = gate.callers().tryNow("store", CallClass.INTERACTIVE, "inbound", STORE_A);
        assertFalse(paused.isGranted());
        assertTrue(paused.retryAfter().compareTo(Duration.ofSeconds(25)) > 0, "the parent's pause: " + paused);
        gate.operators().resume("vendor", "ops");
        // a call in the parent's own line that waits while the parent's slot is free (its concurrency key is held)
        long holder = gate.programs().submit("p", "vendor", CallClass.SCHEDULED,
                CallOptions.NONE.withConcurrencyKey("k"), null).call().id();
        GateCopies.await("the holder granted", Duration.ofSeconds(5), () -> copies.state(holder).equals("GRANTED"));
        long ahead = gate.programs().submit("p", "vendor", CallClass.INTERACTIVE,
                CallOptions.NONE.withConcurrencyKey("k"), null).call().id();
        long end = System.nanoTime() + Duration.ofMillis(600).toNanos();
        while (System.nanoTime() < end) { // six parent gaps: each free slot is the waiting call's, not a try's
            assertFalse(tried(STORE_B).isGranted(),
                    "a try on a key jumped the parent's own INTERACTIVE call");
            Thread.sleep(20);
        }
        assertEquals("WAITING", copies.state(ahead));
        gate.callers().complete(holder, 200);
        GateCopies.await("the parent's own call granted", Duration.ofSeconds(5),
                () -> copies.state(ahead).equals("GRANTED"));
        GateCopies.await("then a try is granted", Duration.ofSeconds(5),
                () -> tried(STORE_B).isGranted());
    }

    private Attempt tried(CallOptions key) {
        try {
            return gate.callers().tryNow("store", CallClass.INTERACTIVE, "inbound", key);
        } catch (dev.gate.api.GateException e) {
            throw new IllegalStateException(e);
        }
    }

    private long submit(String limit, CallOptions options) throws Exception {
        return gate.programs().submit("p", limit, CallClass.SCHEDULED, options, null).call().id();
    }
}
