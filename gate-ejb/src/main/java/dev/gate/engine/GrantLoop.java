package dev.gate.engine;

import dev.gate.store.GrantPass;
import dev.gate.store.Granter;
import dev.gate.store.LimitTable;
import dev.gate.store.StoreBusy;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.WaitingLimits;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The slot loop: one pass at a time ({@link SlotTimer}) over every limit with waiting calls, each limit in its own
 * grant transaction, then asleep until the earliest slot due. A limit whose lock another transaction holds, or whose
 * grant met a busy lock, is looked at again shortly; only a lost database pauses calls.
 */
final class GrantLoop {

    private static final Logger LOG = Logger.getLogger(GrantLoop.class.getName());

    /** How soon the loop looks again at a limit whose lock another transaction held, or whose grant was busy. */
    static final Duration BUSY_RETRY = Duration.ofMillis(10);

    /**
     * How early the loop wakes for a slot: it locks the limit and reads its sends before the slot, and the grant
     * transaction waits (holding the lock) until the slot is due by the database's clock, so the send goes out on
     * time. Without it, the timer's wake and the lock's round trip came after the slot: 4-6 ms late at the median, and
     * on a busy 2-core box 13 ms at p90 and 57 ms at p99 (demo, 20 a second). Nothing the lock holds back could go
     * before the slot anyway, except a cool-down's start, which waits at most this long.
     */
    static final Duration LEAD = Duration.ofMillis(20);

    private final Granter granter;
    private final LimitTable limits;
    private final Delivery delivery;
    private final Recovery recovery;
    private final Health health;
    private final EngineSettings settings;
    private final SlotTimer timer;
    // keys found held back by their parent, and that parent: one pass only runs one such key's transaction per
    // parent slot, not one per key (a pass at a time, so only the loop's thread touches it)
    private Map<String, String> parentOf = Map.of();

    GrantLoop(Granter granter, LimitTable limits, Delivery delivery, Recovery recovery, Health health,
              EngineSettings settings, ScheduledExecutorService scheduler) {
        this.granter = granter;
        this.limits = limits;
        this.delivery = delivery;
        this.recovery = recovery;
        this.health = health;
        this.settings = settings;
        this.timer = new SlotTimer(scheduler, this::pass);
    }

    /** Runs a pass now (or right after the running one): a call joined, a key or a slot may be free. */
    void wake() {
        timer.armIn(Duration.ZERO);
    }

    void stop() {
        timer.stop();
    }

    // Tried: running the loop at once after a fast-path grant while other callers here wait (to grant them together
    // under one commit). Measured worse at 4 and 16 callers (263 and 343 grants/s against 448 and 428): the extra
    // passes cost more CPU than the batching saved on 2 cores.

    /** For a pass made elsewhere (a caller's fast path): its grants from before its commit until {@link #passMade}. */
    Delivery.Pending pending() {
        return delivery.pending();
    }

    /** A pass made elsewhere (a caller's fast path) is delivered like the loop's own, and the loop set by it. */
    void passMade(GrantPass pass) {
        delivery.granted(pass);
        pass.dueIn().ifPresent(due -> timer.armIn(pass.skipped() ? BUSY_RETRY : early(due)));
    }

    private void pass() {
        Duration sleep = settings.idlePoll();
        try {
            recovery.resumeIfPaused();
            WaitingLimits waiting = limits.withWaitingCalls();
            // the longest due first: keys under one parent share its slots, and the key whose own slot came due
            // longest ago (an idle key's) takes the parent's next one before a busy key's
            List<WaitingLimits.Due> byDue = new ArrayList<>(waiting.limits());
            byDue.sort(Comparator.comparing(WaitingLimits.Due::notBefore));
            Map<String, String> parents = new HashMap<>(); // of the keys waiting now, as earlier passes found them
            Map<String, Duration> parentHeld = new HashMap<>(); // this pass: parents whose slot is taken, how long
            for (WaitingLimits.Due limit : byDue) {
                String parent = parentOf.get(limit.limit());
                if (parent != null) {
                    parents.put(limit.limit(), parent);
                }
                Duration until = waiting.untilDue(limit);
                Duration held = parent == null ? null : parentHeld.get(parent);
                if (held != null && (until.isNegative() || until.isZero())) {
                    // its parent held a key back this pass: its slot is taken, no transaction for this key either
                    until = held;
                }
                // a limit whose beat or cool-down is more than the lead ahead cannot send: no transaction for it
                Duration due = until.compareTo(LEAD) <= 0
                        ? grant(limit.limit(), sleep, parents, parentHeld) : early(until);
                if (due.compareTo(sleep) < 0) {
                    sleep = due;
                }
            }
            parentOf = parents;
            recovery.resumeIfPaused();
        } catch (StoreUnavailable e) {
            health.failed(e);
            sleep = settings.retry();
        } catch (StoreBusy e) {
            sleep = BUSY_RETRY;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "slot loop pass failed; retrying in " + settings.retry().toMillis() + " ms", e);
            sleep = settings.retry();
        }
        timer.armIn(sleep);
    }

    /** The wake for something due in {@code due}: the lead before it. */
    private static Duration early(Duration due) {
        Duration wake = due.minus(LEAD);
        return wake.isNegative() ? Duration.ZERO : wake;
    }

    /**
     * One limit's grant transaction; answers how soon the limit wants the loop again. A key its parent held back
     * notes the parent (for the next passes) and how long the parent's slot is taken (for the rest of this one).
     */
    private Duration grant(String limit, Duration idle, Map<String, String> parents, Map<String, Duration> parentHeld)
            throws StoreUnavailable {
        try (Delivery.Pending pending = delivery.pending()) {
            GrantPass p = granter.grantDue(limit, LEAD, pending::hold);
            delivery.granted(p);
            // after a grant the next slot came from the beat moving on: wake early for it. A pass that granted
            // nothing was held back by what the lead does not wait for (a parent, a cap past the lead): wake when due
            Duration due = p.skipped() ? BUSY_RETRY
                    : p.dueIn().map(d -> p.grants().isEmpty() ? d : early(d)).orElse(idle);
            if (p.heldByParent() != null) {
                parents.put(limit, p.heldByParent());
                parentHeld.merge(p.heldByParent(), due, (a, b) -> a.compareTo(b) < 0 ? a : b);
            }
            return due;
        } catch (StoreBusy e) {
            LOG.fine(() -> "limit " + limit + " busy (" + e.getMessage() + "); looking again in "
                    + BUSY_RETRY.toMillis() + " ms");
            return BUSY_RETRY;
        }
    }
}
