package dev.gate.engine;

import dev.gate.store.GrantPass;
import dev.gate.store.Granter;
import dev.gate.store.StoreBusy;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.WaitingLimits;
import dev.gate.store.WaitingLines;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
     * How early the loop wakes for a slot: the timer's wake may come late on a busy box, so the loop wakes this much
     * early and waits the rest itself (holding no lock: the limit's row stays free for other instances and for
     * callers' tries meanwhile), then takes the lock and grants. Without it, the timer's wake came after the slot:
     * on a busy 2-core box 13 ms at p90 and 57 ms at p99 (demo, 20 a second).
     */
    static final Duration LEAD = Duration.ofMillis(20);

    private final Granter granter;
    private final WaitingLines limits;
    private final Delivery delivery;
    private final Recovery recovery;
    private final Health health;
    private final EngineSettings settings;
    private final SlotTimer timer;
    // keys found held back by their parent, and that parent: one pass only runs one such key's transaction per
    // parent slot, not one per key (a pass at a time, so only the loop's thread touches it)
    private Map<String, String> parentOf = Map.of();

    GrantLoop(Granter granter, WaitingLines limits, Delivery delivery, Recovery recovery, Health health,
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
            // this pass: each parent's first key it held back (the longest due): the parent's next slot is that key's,
            // whichever line of the parent's (its own or another key's) comes within the lead of it first
            Map<String, String> heldFirst = new HashMap<>();
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
                Duration due;
                if (until.compareTo(LEAD) <= 0) {
                    SlotWait.until(until); // by the database's clock as the read mapped it: never early
                    String first = heldFirst.remove(parent != null ? parent : limit.limit());
                    if (first != null && !first.equals(limit.limit())) {
                        Duration firstDue = grant(first, sleep, parents, parentHeld, heldFirst);
                        if (firstDue.compareTo(sleep) < 0) {
                            sleep = firstDue;
                        }
                    }
                    due = grant(limit.limit(), sleep, parents, parentHeld, heldFirst);
                } else {
                    due = early(until);
                }
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
     * notes the parent (for the next passes) and how long the parent's slot is taken (for the rest of this one); if
     * the parent's slot comes within the lead, the key waits for it here (no lock held) and tries once more, as the
     * parent's own line does: the parent's own pass, woken early, would otherwise take every slot first.
     */
    private Duration grant(String limit, Duration idle, Map<String, String> parents, Map<String, Duration> parentHeld,
                           Map<String, String> heldFirst) throws StoreUnavailable {
        try {
            GrantPass p = grantOnce(limit);
            Optional<Duration> parentDue = p.heldByParent() == null || !p.grants().isEmpty() ? Optional.empty()
                    : p.dueIn().filter(d -> d.compareTo(LEAD) <= 0);
            if (parentDue.isPresent()) {
                SlotWait.until(parentDue.get());
                p = grantOnce(limit);
            }
            // after a grant the next slot came from the beat moving on: wake early for it (the next pass waits the
            // rest). A pass that granted nothing was held back by what the slot row does not show (a parent, a cap):
            // wake when due, since the next pass would find its row due and not wait
            GrantPass pass = p;
            Duration due = pass.skipped() ? BUSY_RETRY
                    : pass.dueIn().map(d -> pass.grants().isEmpty() && pass.heldByParent() == null ? d : early(d))
                    .orElse(idle);
            if (pass.heldByParent() != null) {
                parents.put(limit, pass.heldByParent());
                parentHeld.merge(pass.heldByParent(), due, (a, b) -> a.compareTo(b) < 0 ? a : b);
                if (pass.grants().isEmpty()) {
                    heldFirst.putIfAbsent(pass.heldByParent(), limit);
                }
            }
            return due;
        } catch (StoreBusy e) {
            LOG.fine(() -> "limit " + limit + " busy (" + e.getMessage() + "); looking again in "
                    + BUSY_RETRY.toMillis() + " ms");
            return BUSY_RETRY;
        }
    }

    /** The limit's grant transaction, its grants delivered once it committed. */
    private GrantPass grantOnce(String limit) throws StoreUnavailable {
        try (Delivery.Pending pending = delivery.pending()) {
            GrantPass p = granter.grantDue(limit, pending::hold);
            delivery.granted(p);
            return p;
        }
    }
}
