package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.api.LimitStatus;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The vendor's own count in the outcome: another client of the same vendor account uses half of the quota behind the
 * gate's back; the programs behind the gate report what the vendor says is left, and the gate holds the difference
 * until the vendor's reset, so they never meet a 429.
 */
class VendorCountHoldTest extends OnTwoCopies {

    /** A vendor counting per fixed window of its own: 20 per 4 s, from its start; it says what is left. */
    private static final class FixedWindowVendor {
        private final long windowNanos = Duration.ofSeconds(4).toNanos();
        private long windowEnd = System.nanoTime() + windowNanos;
        private int used;
        private int window;
        private final List<Integer> gateSendsPerWindow = new ArrayList<>(List.of(0));
        private final AtomicInteger refused = new AtomicInteger();

        /** One request: its status, what is left, the whole seconds to the reset (rounded up, as vendors do). */
        synchronized int[] call(boolean viaGate) {
            long now = System.nanoTime();
            while (now >= windowEnd) {
                windowEnd += windowNanos;
                used = 0;
                window++;
                gateSendsPerWindow.add(0);
            }
            used++;
            if (viaGate) {
                gateSendsPerWindow.set(window, gateSendsPerWindow.get(window) + 1);
            }
            int status = used > 20 ? 429 : 200;
            if (status == 429) {
                refused.incrementAndGet();
            }
            long resetSeconds = (windowEnd - now + 999_999_999L) / 1_000_000_000L;
            return new int[]{status, Math.max(0, 20 - used), (int) resetSeconds};
        }
    }

    @Test
    void aSecondClientUsesHalfTheQuotaBehindTheGatesBackAndTheGatesProgramsSeeNo429() throws Exception {
        String limit = "account";
        a.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(4)));
        FixedWindowVendor vendor = new FixedWindowVendor();
        for (int i = 0; i < 10; i++) { // the other client, first in the vendor's window
            vendor.call(false);
        }
        ExecutorService programs = Executors.newFixedThreadPool(4);
        AtomicInteger seen429 = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Engine copy = t % 2 == 0 ? a : b;
            done.add(programs.submit(() -> {
                for (int i = 0; i < 6; i++) {
                    Permit p = copy.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(20), "worker",
                            CallOptions.NONE);
                    int[] answer = vendor.call(true);
                    if (answer[0] == 429) {
                        seen429.incrementAndGet();
                    }
                    copy.callers().complete(p.callId(), "worker", answer[0], null, answer[1], (long) answer[2], null);
                }
                return null;
            }));
        }
        LimitStatus held = null;
        for (int i = 0; i < 100 && held == null; i++) { // the status while the gate holds (within 10 s)
            LimitStatus s = a.limits().status(limit).orElseThrow();
            if (s.getVendorLeft() != null && s.getVendorLeft() == 0) {
                held = s;
            }
            Thread.sleep(100);
        }
        for (Future<?> f : done) {
            f.get();
        }
        programs.shutdown();
        System.out.println("vendor count: 10 of 20 taken by another client first; the gate's sends per vendor window "
                + vendor.gateSendsPerWindow + ", 429s seen by its programs " + seen429.get() + ", at the vendor "
                + vendor.refused.get());
        assertEquals(0, seen429.get(), "no program behind the gate met a 429");
        assertTrue(vendor.gateSendsPerWindow.get(0) <= 10, "the gate held the other client's half back: "
                + vendor.gateSendsPerWindow);
        assertTrue(held != null, "the status showed the vendor's count: nothing left until its reset");
        assertEquals(24, vendor.gateSendsPerWindow.stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void aCountOfTheGatesOwnSendsHoldsNothingAFullWindowOrOthersUseHoldUntilTheReset() throws Exception {
        // the gate alone at a vendor of the same rule: the vendor says 1 of 5 left for 30 s after the gate's 4 sends:
        // its own rule already holds the rest, and the vendor's word adds no hold (a vendor that rounds its reset up
        // to whole seconds would otherwise stall a tight limit until then)
        a.limits().put("alone", LimitSpec.of(5, Duration.ofSeconds(10)).withBurst(5));
        for (int i = 0; i < 4; i++) {
            Permit p = a.callers().acquire("alone", CallClass.SCHEDULED, Duration.ofSeconds(10), "worker",
                    CallOptions.NONE);
            a.callers().complete(p.callId(), "worker", 200, null, 4 - i, 30L, 5);
        }
        assertEquals(null, a.limits().status("alone").orElseThrow().getVendorLeft(),
                "explained by the gate's own sends: no hold of the vendor's");
        Permit fifth = a.callers().acquire("alone", CallClass.SCHEDULED, Duration.ofSeconds(2), "worker",
                CallOptions.NONE);
        // a full window, even of the gate's own sends, holds until the vendor's reset: its first call may have
        // reached the vendor later than the margin allows for (a cold connection), and only the vendor knows when
        a.callers().complete(fifth.callId(), "worker", 200, null, 0, 30L, 5);
        assertEquals(0, a.limits().status("alone").orElseThrow().getVendorLeft(), "0 left: the vendor's word holds");

        // another client used the window: the vendor says 0 left for 30 s after one send of the gate's (a minute's
        // window, a burst of 5: the gate's own rule would send the next at once)
        a.limits().put("shared", LimitSpec.of(5, Duration.ofMinutes(1)).withBurst(5));
        Permit p = a.callers().acquire("shared", CallClass.SCHEDULED, Duration.ofSeconds(10), "worker",
                CallOptions.NONE);
        a.callers().complete(p.callId(), "worker", 200, null, 0, 30L, 5);
        LimitStatus held = a.limits().status("shared").orElseThrow();
        assertEquals(0, held.getVendorLeft(), "4 used by another client: the gate holds to the vendor's word");
        Permit later = null;
        try {
            later = a.callers().acquire("shared", CallClass.SCHEDULED, Duration.ofSeconds(2), "worker",
                    CallOptions.NONE);
        } catch (dev.gate.api.GateTimeoutException expected) {
            // held until the vendor's reset, 30 s away
        }
        assertEquals(null, later, "no grant while the vendor's count holds (its own rule would allow 4 more)");
    }

    @Test
    void aCountOfZeroIsAPauseCappedByMaxCoolDownEndedByResumeRecordedAndShownWithWhoReportedIt() throws Exception {
        String limit = "held";
        // 36,000 an hour: a gap of 100 ms (the beat holds nothing long), an hour the count could hold for
        a.limits().put(limit, LimitSpec.of(36_000, Duration.ofHours(1)).withMaxCoolDown(Duration.ofSeconds(60)));
        dev.gate.api.Attempt first = a.callers().tryNow(limit, CallClass.SCHEDULED, "worker", CallOptions.NONE);
        assertTrue(first.isGranted());
        // the vendor: nothing left for an hour (a program's report, as every call's headers would carry it)
        a.callers().complete(first.permit().callId(), "worker", 200, null, 0, 3_600L, null);
        dev.gate.api.Attempt held = b.callers().tryNow(limit, CallClass.INTERACTIVE, "web", CallOptions.NONE);
        assertTrue(!held.isGranted(), "the count holds the limit");
        assertTrue(held.retryAfter().compareTo(Duration.ofSeconds(50)) > 0
                && held.retryAfter().compareTo(Duration.ofSeconds(61)) <= 0, "held, and no longer than the limit's "
                + "maxCoolDown (60 s), as a cool-down: " + held.retryAfter());
        LimitStatus status = b.limits().status(limit).orElseThrow();
        assertEquals(0L, status.getVendorLeft());
        assertEquals("worker", status.getVendorProgram(), "who reported it");
        assertEquals(first.permit().callId(), status.getVendorCall());
        assertTrue(status.getVendorResetAt().isBefore(status.getAsOf().plusSeconds(61)), status.getVendorResetAt()
                + " against " + status.getAsOf());
        dev.gate.api.OperatorAction recorded = a.operators().recent(5).stream()
                .filter(x -> x.getAction().equals("vendor-count")).findFirst().orElseThrow();
        assertEquals("worker", recorded.getActor());
        assertEquals("limit " + limit, recorded.getTarget());
        assertTrue(recorded.getDetail().contains("call " + first.permit().callId()), recorded.getDetail());

        // a re-declaration with a shorter maxCoolDown holds no longer than it
        a.limits().put(limit, LimitSpec.of(36_000, Duration.ofHours(1)).withMaxCoolDown(Duration.ofSeconds(20)));
        dev.gate.api.Attempt shorter = b.callers().tryNow(limit, CallClass.INTERACTIVE, "web", CallOptions.NONE);
        assertTrue(!shorter.isGranted() && shorter.retryAfter().compareTo(Duration.ofSeconds(10)) > 0
                && shorter.retryAfter().compareTo(Duration.ofSeconds(21)) <= 0, "re-declared: " + shorter);

        // the operator's resume ends it, as it ends a cool-down
        a.operators().resume(limit, "ops");
        dev.gate.api.Attempt after = b.callers().tryNow(limit, CallClass.INTERACTIVE, "web", CallOptions.NONE);
        assertTrue(after.isGranted() || after.retryAfter().compareTo(Duration.ofMillis(101)) <= 0,
                "resumed: the next beat's slot at the latest: " + after);
        assertEquals(null, b.limits().status(limit).orElseThrow().getVendorLeft(), "no count in force");
        assertEquals(1, a.operators().recent(10).stream().filter(x -> x.getAction().equals("vendor-count")).count(),
                "one record for the hold, however many reports");
    }

    @Test
    void aCountOfTheParentsQuotaReportedOnOneKeysCallHoldsEveryKey() throws Exception {
        // on the old code the count held the reporting key alone (with its quota named), or was dropped as more than
        // the key's rule allows (with none): a try on another key went at once, over the vendor's whole account
        a.limits().put("account", LimitSpec.of(600, Duration.ofMinutes(1)));
        a.limits().put("stores", LimitSpec.of(5, Duration.ofSeconds(1)).withKeyed(true).withParent("account"));
        dev.gate.api.Attempt first = a.callers().tryNow("stores", CallClass.SCHEDULED, "web",
                CallOptions.NONE.withLimitKey("store-1"));
        assertTrue(first.isGranted());
        // the vendor: 0 left of the account's 600 for a minute (another client used the rest)
        a.callers().complete(first.permit().callId(), "web", 200, null, 0, 60L, 600);
        dev.gate.api.Attempt other = b.callers().tryNow("stores", CallClass.SCHEDULED, "web",
                CallOptions.NONE.withLimitKey("store-2"));
        assertTrue(!other.isGranted(), "another key is held by the account's count");
        assertTrue(other.retryAfter().compareTo(Duration.ofSeconds(50)) > 0, "until its reset: " + other.retryAfter());
        assertEquals(1, copies.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'account' "
                + "AND vendor_remaining = 0 AND vendor_reset_at > clock_timestamp() + interval '50 s'"));

        // with no quota named, a remaining above every key's rule is the account's, not a count to drop
        a.operators().resume("account", "ops"); // ends the hold
        Permit third = a.callers().await(a.callers().join("stores", CallClass.SCHEDULED, "web",
                CallOptions.NONE.withLimitKey("store-3")), Duration.ofSeconds(5));
        a.callers().complete(third.callId(), "web", 200, null, 550, 60L, null);
        assertEquals(1, copies.count("SELECT count(*) FROM gate_slot WHERE limit_name = 'account' "
                + "AND vendor_remaining = 550"), "taken as the account's count");
    }
}
