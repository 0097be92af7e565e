package dev.gate.store;

import dev.gate.domain.Grant;
import dev.gate.rules.Beat;
import dev.gate.rules.Cost;
import dev.gate.rules.DueRun;
import dev.gate.rules.LimitRules;
import dev.gate.rules.SlotDecision;
import dev.gate.rules.VendorCount;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The grant transaction for one limit. Locks the limit's slot row (the per-limit mutex across every gate instance),
 * then, while the beat and the window cap both say go and calls wait, grants the head of the line, logs the send
 * and moves the beat. Several due slots are granted in the one transaction. Callers are told only after commit.
 */
public final class Granter {

    /** How soon a pass looks again when the call its guard or turns chose left before the grant. */
    static final Duration RECHOOSE = Duration.ofMillis(10);

    /** Upper bound of grants in one transaction, so one busy limit cannot hold its lock for long. */
    static final int MAX_GRANTS_PER_PASS = 64;

    // An empty pass for a limit that is gone tells the loop so, rather than coming back for it.
    private static final String EXISTS = "SELECT 1 FROM gate_limit WHERE name = ?";

    // A call of cost above 1 waits in the limit's line (gate_call_costly_waiting holds only those): asked when a run of
    // cost-1 grants stopped short, so a pass without costly calls never asks.
    private static final String COSTLY_WAITING = """
            SELECT 1 FROM gate_call WHERE limit_name = ? AND state = 'WAITING' AND cost > 1 LIMIT 1""";

    /**
     * Channel of call notifications: the ids (comma-separated) of calls that were just granted or got their outcome.
     */
    public static final String CHANNEL = "gate_call";

    private final Tx tx;

    public Granter(Tx tx) {
        this.tx = tx;
    }

    /**
     * Grants every call of {@code limit} that is due now, in one transaction. If another transaction holds the
     * limit's lock (it is granting right now), skips instead of queueing behind it: neither the loop nor a caller's
     * fast path ever waits on another instance. It never waits for a slot either: the lock is held only while the
     * pass reads and writes (the loop waits for a slot before it takes the lock).
     */
    public GrantPass grantDue(String limit) throws StoreUnavailable {
        return grantDue(limit, pass -> { });
    }

    /** As above; {@code beforeCommit} sees the pass before it commits (and before anyone hears of it). */
    public GrantPass grantDue(String limit, Consumer<GrantPass> beforeCommit) throws StoreUnavailable {
        return tx.run(c -> {
            GrantPass pass = grantDue(c, limit);
            beforeCommit.accept(pass);
            return pass;
        });
    }

    /** As {@link #grantDue(String)}, inside a transaction of the caller's. */
    static GrantPass grantDue(Connection c, String limit) throws SQLException {
        Optional<SlotLock.Locked> locked;
        try (PreparedStatement ps = c.prepareStatement(SlotLock.SQL)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return !exists(c, limit) ? new GrantPass(List.of(), Instant.EPOCH, Optional.empty(), false)
                            : GrantPass.lockedElsewhere();
                }
                locked = SlotLock.locked(rs);
            }
        }
        return grantDue(c, limit, locked);
    }

    /** The pass, once {@link SlotLock#SQL} has run; empty {@code locked}: another transaction holds the lock. */
    static GrantPass grantDue(Connection c, String limit, Optional<SlotLock.Locked> locked) throws SQLException {
        if (locked.isEmpty()) {
            return GrantPass.lockedElsewhere();
        }
        Instant slot = locked.get().slot();
        Instant pausedUntil = locked.get().pausedUntil();
        LimitRules limitRules = locked.get().rules();
        long seq = locked.get().seq();
        SendProbe first = locked.get().probe();
        SlotLock.LineOrder order = locked.get().order();
        List<Grant> grants = new ArrayList<>();
        Instant now;
        Optional<Instant> nextDue;
        ParentSlot parent = null; // a key under a parent: the parent's slot, locked at the first grant that needs it
        String heldBy = null;
        boolean costly = false; // a call of cost above 1 waits: one grant at a time, each probed for its head's units
        while (true) {
            SendProbe probe = first != null ? first : SendProbe.read(c, limit, limitRules, seq);
            first = null;
            now = probe.now();
            SlotDecision decision = probe.decide(limitRules, now, slot,
                    locked.get().notBefore(seq, Cost.ONE, now));
            if (!decision.sendNow()) { // not even one unit fits: no call does
                nextDue = Optional.of(decision.notBefore());
                break;
            }
            if (grants.size() >= MAX_GRANTS_PER_PASS) {
                nextDue = Optional.of(now);
                break;
            }
            ChosenHead.Choice choice = null;
            if (costly) {
                Optional<ChosenHead.Choice> chosen = ChosenHead.choose(c, limit, order, now);
                if (chosen.isEmpty()) {
                    nextDue = order.aging() == null && !order.fairPrograms() ? Optional.empty()
                            : Optional.of(now.plus(RECHOOSE));
                    break;
                }
                choice = chosen.get();
                if (!choice.cost().isOne()) { // its units must all fit every window
                    SendProbe units = SendProbe.read(c, limit, limitRules, seq, choice.cost());
                    now = units.now();
                    decision = units.decide(limitRules, now, slot,
                            locked.get().notBefore(seq, choice.cost(), now));
                    if (!decision.sendNow()) {
                        nextDue = Optional.of(decision.notBefore());
                        break;
                    }
                }
            }
            Instant due = decision.notBefore(); // the beat, or later where a cap or the cool-down held it back
            if (locked.get().parent() != null) {
                if (parent == null) {
                    Optional<ParentSlot> p = ParentSlot.lock(c, locked.get().parent());
                    if (p.isEmpty()) { // the parent is granting right now (its own line, or another key's)
                        nextDue = Optional.of(now.plus(RECHOOSE));
                        break;
                    }
                    parent = p.get();
                }
                Optional<Instant> parentNotBefore = parent.due(c);
                if (parentNotBefore.isPresent()) { // the key could send, the parent cannot yet
                    nextDue = parentNotBefore;
                    heldBy = locked.get().parent();
                    break;
                }
                if (parent.decidedAt.isAfter(now)) {
                    now = parent.decidedAt; // the parent's probe read the clock later: leases, deadlines then
                }
            }
            if (choice != null) {
                Cost cost = choice.cost();
                Instant next = due.plus(cost.beat(limitRules.gap()));
                Duration restart = Beat.restartAfter(due, now, limitRules.gap(), limitRules.burst(), cost)
                        .orElse(null);
                Optional<ChosenHead.Head> head = ChosenHead.grant(c, limit, order, choice, due, seq + 1, next,
                        restart);
                if (head.isEmpty()) { // not found as chosen (it is locked: never expected)
                    nextDue = Optional.of(now.plus(RECHOOSE));
                    break;
                }
                grants.add(head.get().grant());
                if (parent != null) {
                    parent.took(c, head.get().grant());
                }
                seq += cost.units();
                slot = head.get().nextSlot();
                if (!head.get().moreWaiting()) {
                    nextDue = Optional.empty();
                    break;
                }
                if (slot.isAfter(head.get().grant().grantedAt())) {
                    now = head.get().grant().grantedAt();
                    nextDue = Optional.of(slot);
                    break;
                }
                continue;
            }
            if (order.aging() == null && !order.fairPrograms()) {
                // the strict order: every send due now in one statement (a key's one at a time: each takes one of
                // its parent's slots too)
                // the vendor's count, until its reset: a run of no more than it said was left
                VendorCount vendor = locked.get().vendor();
                int most = parent != null ? 1 : MAX_GRANTS_PER_PASS - grants.size();
                if (vendor != null && now.isBefore(vendor.resetAt())) {
                    most = (int) Math.max(1, Math.min(most, vendor.left(seq)));
                }
                List<DueRun.Step> run = GrantRun.plan(c, limit, limitRules, probe, now, slot, pausedUntil, seq, most);
                GrantRun.Ran ran = GrantRun.grant(c, limit, now, seq, run);
                if (ran.grants().isEmpty()) {
                    if (costlyWaiting(c, limit)) { // the run stopped before a costlier head: it goes alone
                        costly = true;
                        continue;
                    }
                    nextDue = Optional.empty(); // nobody grantable
                    break;
                }
                grants.addAll(ran.grants());
                if (parent != null) {
                    parent.took(c, ran.grants().get(0));
                }
                seq += ran.grants().size();
                slot = ran.nextSlot();
                Instant sentAt = ran.grants().get(0).grantedAt();
                if (!ran.moreWaiting()) {
                    nextDue = Optional.empty(); // the line is empty now
                    break;
                }
                if (slot.isAfter(sentAt)) { // nothing more is due now (see below)
                    now = sentAt;
                    nextDue = Optional.of(slot);
                    break;
                }
                continue;
            }
            Instant next = due.plus(limitRules.gap());
            Duration restart = Beat.restartAfter(due, now, limitRules.gap(), limitRules.burst()).orElse(null);
            Optional<ChosenHead.Head> head = ChosenHead.grant(c, limit, order, now, due, seq + 1, next, restart);
            if (head.isEmpty()) {
                if (costlyWaiting(c, limit)) { // the chosen head costs more than one: chosen again, probed for it
                    costly = true;
                    continue;
                }
                // with a guard or turns the chosen call may have left meanwhile (cancelled, expired) while others
                // wait: look again shortly rather than sleep
                nextDue = Optional.of(now.plus(RECHOOSE));
                break;
            }
            grants.add(head.get().grant());
            if (parent != null) {
                parent.took(c, head.get().grant());
            }
            seq++;
            slot = head.get().nextSlot();
            if (!head.get().moreWaiting()) {
                nextDue = Optional.empty(); // the line is empty now: no need to look at the clock again
                break;
            }
            if (slot.isAfter(head.get().grant().grantedAt())) {
                // the beat is ahead of this send: nothing more is due now, and no probe is needed to know it (a cap
                // may hold the next send later still: the pass then due finds it). The grant commits a round trip
                // sooner, and its caller hears of it sooner.
                now = head.get().grant().grantedAt();
                nextDue = Optional.of(slot);
                break;
            }
        }
        return new GrantPass(List.copyOf(grants), now, nextDue, false, heldBy);
    }

    private static boolean costlyWaiting(Connection c, String limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(COSTLY_WAITING)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static boolean exists(Connection c, String limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(EXISTS)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
