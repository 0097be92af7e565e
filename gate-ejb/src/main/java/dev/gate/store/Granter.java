package dev.gate.store;

import dev.gate.domain.Grant;

import dev.gate.domain.CallRow;

import dev.gate.api.CallClass;
import dev.gate.rules.AdaptiveRate;
import dev.gate.rules.Aging;
import dev.gate.rules.Beat;
import dev.gate.api.CallState;
import dev.gate.rules.DueRun;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;
import dev.gate.rules.ReceiptMargin;
import dev.gate.rules.SlotDecision;
import dev.gate.rules.SlotRule;

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

    // SKIP LOCKED: nobody queues on a limit's lock. If another transaction holds it, that one is granting (or moving
    // the cool-down) right now, and this pass comes back shortly instead of waiting behind it. It never waits, so the
    // clock read in the same statement is as good as one taken after the lock.
    // The first probe rides along: the last send and, per rule, the calls-th most recent send, by send number. Their
    // rows are read in this statement's snapshot, and the slot row is its newest version: if another grant committed
    // between the two, the last send is missing from the snapshot and the pass probes again (see probeSql).
    static final String LOCK_SLOT = """
            SELECT s.next_slot_at, s.paused_until, s.send_seq, l.calls, l.window_ms, l.min_interval_ms,
                   l.receipt_margin_ms, l.aging_after_ms, l.aging_up_to, l.fair_programs, l.burst, l.adaptive,
                   s.adaptive_calls, s.adaptive_cut_at, l.parent_name,
                   ARRAY(SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms, r.calls)
                       AS rule_calls,
                   ARRAY(SELECT r.window_ms FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms, r.calls)
                       AS rule_windows,
                   clock_timestamp() AS now,
                   (SELECT sent_at FROM gate_send g WHERE g.limit_name = s.limit_name AND g.seq = s.send_seq)
                       AS last_sent,
                   (SELECT sent_at FROM gate_send g WHERE g.limit_name = s.limit_name AND g.seq = s.send_seq - l.calls + 1)
                       AS nth_sent,
                   ARRAY(SELECT (SELECT sent_at FROM gate_send g
                                 WHERE g.limit_name = r.limit_name AND g.seq = s.send_seq - r.calls + 1)
                         FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms, r.calls) AS rule_nth_sent
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?
            FOR UPDATE OF s SKIP LOCKED""";

    // An empty pass for a limit that is gone tells the loop so, rather than coming back for it.
    private static final String EXISTS = "SELECT 1 FROM gate_limit WHERE name = ?";

    /**
     * Channel of call notifications: the ids (comma-separated) of calls that were just granted or got their outcome.
     */
    public static final String CHANNEL = "gate_call";

    // A probe of its own, in a new snapshot, once the lock is held: after a grant of this pass, or when the lock's
    // snapshot missed a grant committed meanwhile. Sends are numbered per limit under this lock, so each probe is a
    // point lookup on (limit_name, seq): the last send, and per rule the calls-th most recent send, which fills the
    // rule's window if it lies inside it (and, if it just left it, tells when a send the cap held back became due).
    static String probeSql(int rules) {
        StringBuilder sql = new StringBuilder("""
                WITH t AS (SELECT clock_timestamp() AS now)
                SELECT t.now,
                       (SELECT sent_at FROM gate_send WHERE limit_name = ? AND seq = ?) AS last_sent""");
        for (int i = 0; i < rules; i++) {
            sql.append(",\n       (SELECT sent_at FROM gate_send WHERE limit_name = ? AND seq = ?) AS nth_").append(i);
        }
        return sql.append("\nFROM t").toString();
    }

    // Head of the line: highest class, then arrival, then the identity sequence. Never granted: an expired lease, a
    // passed deadline, or a key another call holds granted and not yet done (that call goes around it, keeping its
    // place). A grant's lease starts anew: a key is free again when the call is done, cancelled, or its lease runs out.
    // A call whose gate instance is dead (its process gone) is passed over: nobody is left to take its grant.
    // The grant is recorded at this statement's own clock read, after its snapshot: a key freed by a commit this
    // statement sees is always done before the grant it lets through (the probe's earlier read could precede it).
    // The send is logged, the beat and the send number move (under the slot lock the pass holds) and the grant is
    // announced, all in this one round trip; a listener hears of it only once it is committed.
    // The conditions a waiting call must meet to be granted (after "WHERE" or "AND": a text block drops the space
    // before its end, so this one starts with one).
    private static final String GRANTABLE = " " + """
            limit_name = ? AND state = 'WAITING' AND lease_expires_at > ?
                  AND (deadline_at IS NULL OR deadline_at > ?)
                  AND """ + InstanceLock.OWNER_ALIVE + """
                  AND (concurrency_key IS NULL OR NOT EXISTS (
                        SELECT 1 FROM gate_call g
                        WHERE g.limit_name = w.limit_name AND g.concurrency_key = w.concurrency_key
                          AND g.state = 'GRANTED' AND g.lease_expires_at > ?))""";

    // Once the head is chosen (and locked), the same for every order. The beat moves to the kept slot, or, where it
    // restarts (Beat.restartAfter), to that long after this send's own clock read (never before the kept slot):
    // "from the actual send", not from the probe's earlier read. Parameters: slot, seq, kept, restart (µs, or null:
    // the beat is kept), seq, limit.
    private static final String GRANT_WRITES = """
            t AS (SELECT clock_timestamp() AS at),
            granted AS (
                UPDATE gate_call c SET state = 'GRANTED', granted_at = t.at, aged = head.aged,
                                       lease_expires_at = t.at + c.lease_ms * interval '1 millisecond'
                FROM head, t WHERE c.id = head.id
                RETURNING c.id, c.limit_name, c.call_class, c.owner, c.program, c.enqueued_at, c.granted_at, c.aged,
                          c.lease_expires_at, c.dedupe_key IS NULL AS alone),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT limit_name, id, granted_at, ?, ? FROM granted),
            nx AS (SELECT greatest(?::timestamptz, t.at + ?::bigint * interval '1 microsecond') AS next_slot FROM t),
            moved AS (
                UPDATE gate_slot SET next_slot_at = nx.next_slot, send_seq = ?
                FROM nx WHERE limit_name = ? AND EXISTS (SELECT 1 FROM granted))""";

    private static final String GRANT_ANSWER = """
            SELECT id, call_class, owner, program, enqueued_at, granted_at, lease_expires_at, alone, aged,
                   (SELECT next_slot FROM nx) AS next_slot, pg_notify('""" + CHANNEL + """
            ', id::text) AS announced,
                   EXISTS (SELECT 1 FROM gate_call o WHERE o.limit_name = granted.limit_name AND o.state = 'WAITING'
                                                       AND o.id <> granted.id) AS more_waiting
            FROM granted""";

    private static final String GRANT_CHOSEN = GRANT_WRITES + "\n" + GRANT_ANSWER;

    // The strict order's run (DueRun): the first k grantable calls of the line, head first, each granted at the same
    // clock read with the run's slots, one send each, numbered on; the beat moves past the last. Of calls sharing a
    // concurrency key only the first goes (the next goes around it, keeping its place, as one at a time). A run that
    // restarted the beat at its first send has its later slots counted from that send, so they move with its
    // recorded time (shift: the statement's clock read less the run's deciding moment). One notification carries
    // every id. Parameters: GRANTABLE's, k, the deciding moment, the steps' due and kept (µs), restart (µs or null)
    // and whether they move with the first send (arrays), seq, seq, limit, limit.
    static final String GRANT_RUN = """
            WITH cand AS (
                SELECT id, call_class, enqueued_at, concurrency_key FROM gate_call w
                WHERE """ + GRANTABLE + """
                ORDER BY call_class, enqueued_at, id
                LIMIT ?
                FOR UPDATE),
            head AS (
                SELECT id, row_number() OVER (ORDER BY call_class, enqueued_at, id) AS n
                FROM (SELECT cand.*, row_number() OVER (PARTITION BY concurrency_key
                                                        ORDER BY call_class, enqueued_at, id) AS of_key
                      FROM cand) c
                WHERE concurrency_key IS NULL OR of_key = 1),
            t0 AS (SELECT clock_timestamp() AS at),
            t AS (SELECT at, greatest(at - ?::timestamptz, interval '0') AS shift FROM t0),
            step AS (
                SELECT p.n,
                       timestamptz 'epoch' + p.due_us * interval '1 microsecond'
                           + CASE WHEN p.moves THEN t.shift ELSE interval '0' END AS slot_at,
                       timestamptz 'epoch' + p.kept_us * interval '1 microsecond'
                           + CASE WHEN p.moves THEN t.shift ELSE interval '0' END AS kept,
                       t.at + p.restart_us * interval '1 microsecond' AS restarted
                FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::boolean[])
                         WITH ORDINALITY AS p(due_us, kept_us, restart_us, moves, n),
                     t),
            granted AS (
                UPDATE gate_call c SET state = 'GRANTED', granted_at = t.at, aged = false,
                                       lease_expires_at = t.at + c.lease_ms * interval '1 millisecond'
                FROM head, t WHERE c.id = head.id
                RETURNING c.id, c.limit_name, c.call_class, c.owner, c.program, c.enqueued_at, c.granted_at,
                          c.lease_expires_at, c.dedupe_key IS NULL AS alone, head.n),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT g.limit_name, g.id, g.granted_at, step.slot_at, ? + g.n FROM granted g JOIN step ON step.n = g.n),
            nx AS (
                SELECT greatest(step.kept, step.restarted) AS next_slot, step.n
                FROM step WHERE step.n = (SELECT max(n) FROM granted)),
            moved AS (
                UPDATE gate_slot SET next_slot_at = nx.next_slot, send_seq = ? + nx.n
                FROM nx WHERE limit_name = ?)
            SELECT id, call_class, owner, program, enqueued_at, granted_at, lease_expires_at, alone, false AS aged,
                   (SELECT next_slot FROM nx) AS next_slot,
                   (SELECT pg_notify('""" + CHANNEL + """
            ', ids) FROM (SELECT string_agg(id::text, ',') AS ids FROM granted) a WHERE ids IS NOT NULL) AS announced,
                   EXISTS (SELECT 1 FROM gate_call o WHERE o.limit_name = ? AND o.state = 'WAITING'
                                                       AND o.id NOT IN (SELECT id FROM head)) AS more_waiting
            FROM granted ORDER BY n""";

    // With the starvation guard: each class's own head (its oldest grantable call, one index lookup per class), each
    // ranked as the guard's class once it has waited long enough (Aging); the best rank goes, then the earliest
    // arrival. Inside a class arrival still decides, so a class's oldest call is the one the guard lifts first.
    // Parameters: now, after (ms), upTo, upTo, then GRANTABLE's, then GRANT_CHOSEN's.
    static final String GRANT_HEAD_AGING = """
            WITH ranked AS (
                SELECT h.id, h.enqueued_at, h.call_class,
                       CASE WHEN h.enqueued_at < ?::timestamptz - ? * interval '1 millisecond' AND h.call_class > ?
                            THEN ? ELSE h.call_class END AS rank
                FROM generate_series(0, 4) AS k(cls)
                CROSS JOIN LATERAL (
                    SELECT id, call_class, enqueued_at FROM gate_call w
                    WHERE call_class = k.cls AND """ + GRANTABLE + """
                    ORDER BY enqueued_at, id
                    LIMIT 1) h),
            chosen AS (SELECT id, rank < call_class AS aged FROM ranked ORDER BY rank, enqueued_at, id LIMIT 1),
            head AS (
                SELECT c.id, chosen.aged FROM gate_call c JOIN chosen ON c.id = chosen.id
                WHERE c.state = 'WAITING'
                FOR UPDATE OF c),
            """ + GRANT_CHOSEN;

    // With programs taking turns: in the highest class with a grantable call, the programs with calls waiting in it (a
    // loose scan of gate_call_program_line: one lookup per program, however many calls each has), each program's
    // oldest grantable call, and the program served longest ago in that class goes first (never served: first of
    // all); inside a program, first come first served. The grant records the program's turn (gate_program_turn).
    // Parameters: GRANTABLE's, limit, limit, GRANTABLE's, limit, then GRANT_CHOSEN's.
    static final String GRANT_HEAD_FAIR = """
            WITH RECURSIVE cls AS (
                SELECT k.cls FROM generate_series(0, 4) AS k(cls)
                WHERE EXISTS (SELECT 1 FROM gate_call w WHERE call_class = k.cls AND """ + GRANTABLE + """
            )
                ORDER BY k.cls
                LIMIT 1),
            progs AS (
                (SELECT w.program FROM gate_call w, cls
                 WHERE w.limit_name = ? AND w.state = 'WAITING' AND w.call_class = cls.cls
                 ORDER BY w.program LIMIT 1)
                UNION ALL
                SELECT (SELECT w.program FROM gate_call w, cls
                        WHERE w.limit_name = ? AND w.state = 'WAITING' AND w.call_class = cls.cls
                          AND w.program > p.program
                        ORDER BY w.program LIMIT 1)
                FROM progs p WHERE p.program IS NOT NULL),
            candidates AS (
                SELECT h.id, h.enqueued_at, turn.served_at
                FROM progs p CROSS JOIN cls
                CROSS JOIN LATERAL (
                    SELECT id, enqueued_at FROM gate_call w
                    WHERE w.program = p.program AND call_class = cls.cls AND """ + GRANTABLE + """
                    ORDER BY enqueued_at, id
                    LIMIT 1) h
                LEFT JOIN gate_program_turn turn
                       ON turn.limit_name = ? AND turn.call_class = cls.cls AND turn.program = p.program
                WHERE p.program IS NOT NULL),
            chosen AS (SELECT id FROM candidates ORDER BY served_at NULLS FIRST, enqueued_at, id LIMIT 1),
            head AS (
                SELECT c.id, false AS aged FROM gate_call c JOIN chosen ON c.id = chosen.id
                WHERE c.state = 'WAITING'
                FOR UPDATE OF c),
            """ + GRANT_WRITES + """
            ,
            turn AS (
                INSERT INTO gate_program_turn (limit_name, call_class, program, served_at)
                SELECT limit_name, call_class, program, granted_at FROM granted
                ON CONFLICT (limit_name, call_class, program) DO UPDATE SET served_at = excluded.served_at)
            """ + GRANT_ANSWER;

    private final Tx tx;

    public Granter(Tx tx) {
        this.tx = tx;
    }

    /**
     * Grants every call of {@code limit} that is due now, in one transaction. If another transaction holds the
     * limit's lock (it is granting right now), skips instead of queueing behind it: neither the loop nor a caller's
     * fast path ever waits on another instance.
     */
    public GrantPass grantDue(String limit) throws StoreUnavailable {
        return grantDue(limit, Duration.ZERO);
    }

    /**
     * As {@link #grantDue(String)}, and if the limit's next send is due within {@code lead}, holds the lock until it
     * is due by the database's clock and grants it then: the slot loop wakes that much early, so that its wake and
     * its lock's round trip are behind it when the slot comes, and the send goes out on time.
     */
    public GrantPass grantDue(String limit, Duration lead) throws StoreUnavailable {
        return grantDue(limit, lead, pass -> { });
    }

    /** As above; {@code beforeCommit} sees the pass before it commits (and before anyone hears of it). */
    public GrantPass grantDue(String limit, Duration lead, Consumer<GrantPass> beforeCommit) throws StoreUnavailable {
        return tx.run(c -> {
            GrantPass pass = grantDue(c, limit, lead);
            beforeCommit.accept(pass);
            return pass;
        });
    }

    /** As {@link #grantDue(String)}, inside a transaction of the caller's. */
    static GrantPass grantDue(Connection c, String limit) throws SQLException {
        return grantDue(c, limit, Duration.ZERO);
    }

    private static GrantPass grantDue(Connection c, String limit, Duration lead) throws SQLException {
        Optional<Locked> locked;
        try (PreparedStatement ps = c.prepareStatement(LOCK_SLOT)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return !exists(c, limit) ? new GrantPass(List.of(), Instant.EPOCH, Optional.empty(), false)
                            : GrantPass.lockedElsewhere();
                }
                locked = locked(rs);
            }
        }
        return grantDue(c, limit, locked, lead);
    }

    /**
     * The limit's slot as {@link #LOCK_SLOT} read it, with its lock held; empty when another transaction held it.
     * Another statement may carry LOCK_SLOT's columns (the fast path's join): a row without them is "locked
     * elsewhere".
     */
    static Optional<Locked> locked(ResultSet rs) throws SQLException {
        long seq = rs.getLong("send_seq");
        if (rs.wasNull()) {
            return Optional.empty();
        }
        LimitRules rules = rules(rs);
        // the lock's probe read the declared calls' n-th send: for an adaptive limit cut below them, probe again
        Probe probe = rules.rules().get(0).calls() == rs.getInt("calls") ? lockedProbe(rs, seq) : null;
        return Optional.of(new Locked(Times.get(rs, "next_slot_at"), Times.get(rs, "paused_until"), seq, rules,
                new LineOrder(aging(rs), rs.getBoolean("fair_programs")), probe, rs.getString("parent_name")));
    }

    /** A locked slot: the beat, the cool-down, the latest send's number, the rules; the probe when complete. */
    record Locked(Instant slot, Instant pausedUntil, long seq, LimitRules rules, LineOrder order, Probe probe,
                  String parent) {

        /**
         * Without its probe if the probe's clock read came before {@code t} (a statement's parts run in no set
         * order): a grant is never recorded before its call joined.
         */
        Locked probedNotBefore(Instant t) {
            return probe == null || !probe.now().isBefore(t) ? this
                    : new Locked(slot, pausedUntil, seq, rules, order, null, parent);
        }
    }

    /** The pass, once {@link #LOCK_SLOT} has run; empty {@code locked}: another transaction holds the lock. */
    static GrantPass grantDue(Connection c, String limit, Optional<Locked> locked) throws SQLException {
        return grantDue(c, limit, locked, Duration.ZERO);
    }

    private static GrantPass grantDue(Connection c, String limit, Optional<Locked> locked, Duration lead)
            throws SQLException {
        if (locked.isEmpty()) {
            return GrantPass.lockedElsewhere();
        }
        Instant slot = locked.get().slot();
        Instant pausedUntil = locked.get().pausedUntil();
        LimitRules limitRules = locked.get().rules();
        long seq = locked.get().seq();
        Probe first = locked.get().probe();
        List<Grant> grants = new ArrayList<>();
        Instant now;
        Optional<Instant> nextDue;
        ParentSlot parent = null; // a key under a parent: the parent's slot, locked at the first grant that needs it
        String heldBy = null;
        while (true) {
            Probe probe = first != null ? first : probe(c, limit, limitRules, seq);
            first = null;
            now = probe.decidingAt(limitRules, slot, pausedUntil, grants.isEmpty() ? lead : Duration.ZERO);
            SlotDecision decision = probe.decide(limitRules, now, slot, pausedUntil);
            if (!decision.sendNow()) {
                nextDue = Optional.of(decision.notBefore());
                break;
            }
            if (grants.size() >= MAX_GRANTS_PER_PASS) {
                nextDue = Optional.of(now);
                break;
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
                Optional<Instant> parentNotBefore = parent.due(c, grants.isEmpty() ? lead : Duration.ZERO);
                if (parentNotBefore.isPresent()) { // the key could send, the parent cannot yet
                    nextDue = parentNotBefore;
                    heldBy = locked.get().parent();
                    break;
                }
                if (parent.decidedAt.isAfter(now)) {
                    now = parent.decidedAt; // the key's pass waited for its parent's slot: leases, deadlines then
                }
            }
            LineOrder order = locked.get().order();
            if (order.aging() == null && !order.fairPrograms()) {
                // the strict order: every send due now in one statement (a key's one at a time: each takes one of
                // its parent's slots too)
                List<DueRun.Step> run = run(c, limit, limitRules, probe, now, slot, pausedUntil, seq,
                        parent != null ? 1 : MAX_GRANTS_PER_PASS - grants.size());
                Ran ran = grantRun(c, limit, now, seq, run);
                if (ran.grants().isEmpty()) {
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
            Optional<Head> head = grantHead(c, limit, order, now, due, seq + 1, next, restart);
            if (head.isEmpty()) {
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

    private static boolean exists(Connection c, String limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(EXISTS)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** The limit's rules as the cap and the beat count them: each window widened by its receipt margin. */
    static LimitRules rules(ResultSet rs) throws SQLException {
        List<Pace> rules = new ArrayList<>();
        rules.add(Pace.of(effectiveCalls(rs), rs.getLong("window_ms")));
        Integer[] calls = (Integer[]) rs.getArray("rule_calls").getArray();
        Long[] windows = (Long[]) rs.getArray("rule_windows").getArray();
        for (int i = 0; i < calls.length; i++) {
            rules.add(Pace.of(calls[i], windows[i]));
        }
        long margin = rs.getLong("receipt_margin_ms");
        return ReceiptMargin.ofNullable(rs.wasNull() ? null : Duration.ofMillis(margin))
                .widen(new LimitRules(rules, Duration.ofMillis(rs.getLong("min_interval_ms")), rs.getInt("burst")));
    }

    /** Binds {@link #GRANTABLE}'s parameters from {@code p}; answers the next index. */
    private static int grantable(PreparedStatement ps, int p, String limit, Instant now) throws SQLException {
        ps.setString(p++, limit);
        Times.set(ps, p++, now);
        Times.set(ps, p++, now);
        Times.set(ps, p++, now);
        return p;
    }

    /** The limit's order beside class and arrival: its starvation guard (null: off), programs taking turns. */
    record LineOrder(Aging aging, boolean fairPrograms) {
    }

    /** The main rule's calls in force now: the declared ones, or an adaptive limit's rate as its last cut left it. */
    static int effectiveCalls(ResultSet rs) throws SQLException {
        int declared = rs.getInt("calls");
        if (!rs.getBoolean("adaptive")) {
            return declared;
        }
        Integer cutTo = (Integer) rs.getObject("adaptive_calls");
        return new AdaptiveRate(declared, Duration.ofMillis(rs.getLong("window_ms")))
                .effective(cutTo, Times.get(rs, "adaptive_cut_at"), Times.get(rs, "now"));
    }

    /** The limit's starvation guard; null: off. */
    static Aging aging(ResultSet rs) throws SQLException {
        long after = rs.getLong("aging_after_ms");
        return rs.wasNull() ? null : new Aging(Duration.ofMillis(after), CallClass.ofRank(rs.getInt("aging_up_to")));
    }

    /** @param receivedNanos {@link System#nanoTime()} when its answer came: the database's time then is at least now */
    record Probe(Instant now, Optional<Instant> lastSent, List<Optional<Instant>> nthSent, long receivedNanos) {

        Probe(Instant now, Optional<Instant> lastSent, List<Optional<Instant>> nthSent) {
            this(now, lastSent, nthSent, System.nanoTime());
        }

        /** The limit's decision as of {@code at}, on this probe's sends. */
        SlotDecision decide(LimitRules rules, Instant at, Instant slot, Instant pausedUntil) {
            return SlotRule.decide(rules, at, slot, nthSent, lastSent, pausedUntil);
        }

        /**
         * When to decide: this probe's clock read, or, when the limit becomes due within {@code lead} of it, that
         * moment, once it has surely come. Under the slot lock nothing the decision counts can change (sends and
         * cool-downs are written under it), so the decision then is the one a probe then would make.
         */
        Instant decidingAt(LimitRules rules, Instant slot, Instant pausedUntil, Duration lead) {
            SlotDecision atRead = decide(rules, now, slot, pausedUntil);
            return !atRead.sendNow() && awaitWithin(lead, atRead.notBefore()) ? atRead.notBefore() : now;
        }

        /**
         * If {@code t} is at most {@code lead} after this probe's clock read, waits until the database's clock has
         * surely reached it: as long after this probe's answer came as {@code t} was after its clock read (read
         * before the answer left, so never early). False if it is further, or the wait was interrupted.
         */
        private boolean awaitWithin(Duration lead, Instant t) {
            if (t.isAfter(now.plus(lead))) {
                return false;
            }
            long until = receivedNanos + Duration.between(now, t).toNanos();
            try {
                for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                    java.util.concurrent.TimeUnit.NANOSECONDS.sleep(left);
                }
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * The probe the lock's statement read, if its snapshot holds the limit's latest send (the one the slot row
     * numbers): then it holds every earlier one too. Null when it may have missed sends: probe again.
     */
    private static Probe lockedProbe(ResultSet rs, long seq) throws SQLException {
        Instant last = Times.get(rs, "last_sent");
        if (seq > 0 && last == null) {
            return null;
        }
        List<Optional<Instant>> nth = new ArrayList<>();
        nth.add(Optional.ofNullable(Times.get(rs, "nth_sent")));
        java.sql.Array rules = rs.getArray("rule_nth_sent");
        for (Object sent : (Object[]) rules.getArray()) {
            nth.add(Optional.ofNullable(sent == null ? null : Times.of(sent)));
        }
        return new Probe(Times.get(rs, "now"), Optional.ofNullable(last), nth);
    }

    /** @param seq the number of the limit's latest send (0: none yet) */
    private static Probe probe(Connection c, String limit, LimitRules limitRules, long seq) throws SQLException {
        List<Pace> rules = limitRules.rules();
        try (PreparedStatement ps = c.prepareStatement(probeSql(rules.size()))) {
            int p = 1;
            ps.setString(p++, limit);
            ps.setLong(p++, seq);
            for (Pace pace : rules) {
                ps.setString(p++, limit);
                ps.setLong(p++, seq - (pace.calls() - 1));
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                List<Optional<Instant>> nth = new ArrayList<>();
                for (int i = 0; i < rules.size(); i++) {
                    nth.add(Optional.ofNullable(Times.get(rs, "nth_" + i)));
                }
                return new Probe(Times.get(rs, "now"), Optional.ofNullable(Times.get(rs, "last_sent")), nth);
            }
        }
    }

    // The parent's own live waiting calls of a try's class or higher (a few are enough to say "not now"), a call the
    // starvation guard lifted counting as its guard's class. Parameters: parent, class rank, class rank, the guard's
    // class rank (none: above every class), the guard's wait in ms.
    private static final String PARENT_AHEAD = """
            SELECT count(*) FROM (
                SELECT 1 FROM gate_call w
                WHERE w.limit_name = ? AND w.state = 'WAITING'
                  AND (w.call_class <= ? OR (? >= ?  -- lifted by the starvation guard to the try's class or higher
                       AND w.enqueued_at < clock_timestamp() - ? * interval '1 millisecond'))
                  AND w.lease_expires_at > clock_timestamp()
                LIMIT 1000) a""";

    // A key's grant logged in its parent's send log too, at the grant's own time, on the parent's beat; the parent's
    // beat and send number move. Parameters: limit, call id, sent at, slot, seq, next slot, seq, limit.
    private static final String PARENT_SEND = """
            WITH sent AS (INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq) VALUES (?, ?, ?, ?, ?))
            UPDATE gate_slot SET next_slot_at = ?, send_seq = ? WHERE limit_name = ?""";

    /**
     * The slot of a parent limit, locked by a key's grant pass (lock order: the key's slot, then its parent's; a
     * parent's own pass locks only its own), so that a key's call is granted only when it fits the parent's beat and
     * window as well as its key's; each grant takes one of the parent's sends.
     */
    static final class ParentSlot {
        private final String name;
        private final LimitRules rules;
        private final Instant pausedUntil;
        private final Aging aging; // the parent's starvation guard, or null
        private Instant slot;
        private long seq;
        private Probe probe;
        private Instant due;
        private Instant decidedAt; // the time its last decision was made as of (after a wait for its slot: the slot)

        private ParentSlot(String name, Locked locked) {
            this.name = name;
            this.rules = locked.rules();
            this.pausedUntil = locked.pausedUntil();
            this.aging = locked.order().aging();
            this.slot = locked.slot();
            this.seq = locked.seq();
            this.probe = locked.probe();
        }

        /** Locks the parent's slot; empty when another transaction holds it (it is granting right now). */
        static Optional<ParentSlot> lock(Connection c, String parent) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(LOCK_SLOT)) {
                ps.setString(1, parent);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return locked(rs).map(l -> new ParentSlot(parent, l));
                }
            }
        }

        /**
         * Empty when the parent may send now, or within {@code lead} (then after waiting for it), and then its slot
         * is noted for {@link #took}; else when it may. A key waits for its parent's slot as the parent's own line
         * does: the parent's own pass, woken early, would otherwise take every slot before the key's pass sees it.
         */
        Optional<Instant> due(Connection c, Duration lead) throws SQLException {
            Probe p = probe != null ? probe : probe(c, name, rules, seq);
            probe = null;
            decidedAt = p.decidingAt(rules, slot, pausedUntil, lead);
            SlotDecision decision = p.decide(rules, decidedAt, slot, pausedUntil);
            if (!decision.sendNow()) {
                return Optional.of(decision.notBefore());
            }
            due = decision.notBefore();
            return Optional.empty();
        }

        /** A try's claim on a key's parent: its slot, free now and locked; or, without one, how long until it may be. */
        record Claim(ParentSlot slot, Duration notNow) {
        }

        /**
         * For a try on one of the parent's keys (the key's slot locked already): the parent's slot if it may send now
         * and no live call of {@code callClass} or a higher one waits in the parent's own line (a try never jumps a
         * queue it would be behind). {@code busy}: come back after this when a grant pass holds the parent's slot.
         */
        static Claim claim(Connection c, String parent, CallClass callClass, Duration busy) throws SQLException {
            Optional<ParentSlot> locked = lock(c, parent);
            if (locked.isEmpty()) {
                return new Claim(null, busy);
            }
            ParentSlot slot = locked.get();
            Optional<Instant> notBefore = slot.due(c, Duration.ZERO);
            Duration untilDue = notBefore.map(t -> Duration.between(slot.decidedAt, t)).filter(d -> !d.isNegative())
                    .orElse(Duration.ZERO);
            long ahead;
            try (PreparedStatement ps = c.prepareStatement(PARENT_AHEAD)) {
                ps.setString(1, parent);
                ps.setInt(2, callClass.rank());
                ps.setInt(3, callClass.rank());
                ps.setInt(4, slot.aging == null ? Integer.MAX_VALUE : slot.aging.upTo().rank());
                ps.setLong(5, slot.aging == null ? 0 : slot.aging.after().toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    ahead = rs.getLong(1);
                }
            }
            if (notBefore.isEmpty() && ahead == 0) {
                return new Claim(slot, Duration.ZERO);
            }
            return new Claim(null, untilDue.plus(slot.rules.gap().multipliedBy(ahead)));
        }

        /**
         * The key's grant takes the parent's slot {@link #due} found free; the parent's beat moves on from it, or
         * restarts from the grant's own time (as the key's does).
         */
        void took(Connection c, Grant grant) throws SQLException {
            Instant next = Beat.next(due, grant.grantedAt(), rules.gap(), rules.burst());
            try (PreparedStatement ps = c.prepareStatement(PARENT_SEND)) {
                ps.setString(1, name);
                ps.setLong(2, grant.callId());
                Times.set(ps, 3, grant.grantedAt());
                Times.set(ps, 4, due);
                ps.setLong(5, seq + 1);
                Times.set(ps, 6, next);
                ps.setLong(7, seq + 1);
                ps.setString(8, name);
                ps.executeUpdate();
            }
            seq++;
            slot = next;
        }
    }

    // A run's later sends need the sends that leave each rule's window as it goes: for a rule of C calls, sends
    // seq - C + 1 on, one per step (a statement of one range lookup per rule, by send number).
    private static String runProbeSql(int rules) {
        StringBuilder sql = new StringBuilder();
        for (int i = 0; i < rules; i++) {
            sql.append(i == 0 ? "" : "\nUNION ALL\n").append("SELECT ").append(i)
                    .append(" AS rule, seq, sent_at FROM gate_send WHERE limit_name = ? AND seq BETWEEN ? AND ?");
        }
        return sql.toString();
    }

    /**
     * The sends due now, for the strict order's run: decided on the probe; when the beat would let a second one go at
     * once (a burst allowance), on the sends that leave each window as the run goes, read in one more round trip.
     */
    private static List<DueRun.Step> run(Connection c, String limit, LimitRules rules, Probe probe, Instant now,
                                         Instant slot, Instant pausedUntil, long seq, int max) throws SQLException {
        List<List<Optional<Instant>>> read = new ArrayList<>();
        for (Optional<Instant> nth : probe.nthSent()) {
            read.add(List.of(nth));
        }
        List<DueRun.Step> first = DueRun.plan(rules, now, slot, read, probe.lastSent(), pausedUntil, max);
        if (max == 1 || first.size() != 1 || first.get(0).next(now).isAfter(now)) {
            return first;
        }
        read.clear();
        List<Pace> paces = rules.rules();
        try (PreparedStatement ps = c.prepareStatement(runProbeSql(paces.size()))) {
            int p = 1;
            for (Pace pace : paces) {
                int steps = Math.min(pace.calls(), max);
                read.add(new ArrayList<>(java.util.Collections.nCopies(steps, Optional.<Instant>empty())));
                ps.setString(p++, limit);
                ps.setLong(p++, seq - pace.calls() + 1);
                ps.setLong(p++, seq - pace.calls() + steps);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int rule = rs.getInt("rule");
                    long from = seq - paces.get(rule).calls() + 1;
                    read.get(rule).set((int) (rs.getLong("seq") - from), Optional.of(Times.get(rs, "sent_at")));
                }
            }
        }
        return DueRun.plan(rules, now, slot, read, probe.lastSent(), pausedUntil, max);
    }

    /** What a run's statement granted (in line order), whether calls still wait, and the limit's next slot. */
    private record Ran(List<Grant> grants, boolean moreWaiting, Instant nextSlot) {
    }

    /** Grants the head of the line's first calls, one per step of {@code run}, as sends {@code seq} + 1 on. */
    private static Ran grantRun(Connection c, String limit, Instant decidedAt, long seq, List<DueRun.Step> run)
            throws SQLException {
        Long[] due = new Long[run.size()];
        Long[] kept = new Long[run.size()];
        Long[] restart = new Long[run.size()];
        Boolean[] moves = new Boolean[run.size()];
        for (int i = 0; i < run.size(); i++) {
            DueRun.Step step = run.get(i);
            due[i] = micros(step.due());
            kept[i] = micros(step.kept());
            restart[i] = step.restart().map(d -> d.toNanos() / 1_000).orElse(null);
            moves[i] = step.fromFirstSend();
        }
        try (PreparedStatement ps = c.prepareStatement(GRANT_RUN)) {
            int p = grantable(ps, 1, limit, decidedAt);
            ps.setInt(p++, run.size());
            Times.set(ps, p++, decidedAt);
            ps.setArray(p++, c.createArrayOf("bigint", due));
            ps.setArray(p++, c.createArrayOf("bigint", kept));
            ps.setArray(p++, c.createArrayOf("bigint", restart));
            ps.setArray(p++, c.createArrayOf("boolean", moves));
            ps.setLong(p++, seq);
            ps.setLong(p++, seq);
            ps.setString(p++, limit);
            ps.setString(p, limit);
            List<Grant> grants = new ArrayList<>();
            boolean more = false;
            Instant next = null;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    grants.add(granted(rs, limit));
                    more = rs.getBoolean("more_waiting");
                    next = Times.get(rs, "next_slot");
                }
            }
            return new Ran(List.copyOf(grants), more, next);
        }
    }

    /**
     * A grant as its statement returned it; the call whole (as {@link Calls#findVisible} reads it) unless dedupe
     * joiners may share it, whose count the statement does not read.
     */
    private static Grant granted(ResultSet rs, String limit) throws SQLException {
        long id = rs.getLong("id");
        CallClass callClass = CallClass.ofRank(rs.getInt("call_class"));
        String owner = rs.getString("owner");
        Instant enqueued = Times.get(rs, "enqueued_at");
        Instant grantedAt = Times.get(rs, "granted_at");
        CallRow whole = rs.getBoolean("alone")
                ? new CallRow(id, limit, callClass, rs.getString("program"), owner, CallState.GRANTED, enqueued,
                        Times.get(rs, "lease_expires_at"), grantedAt, null, null, 0)
                : null;
        return new Grant(id, limit, callClass, owner, enqueued, grantedAt, rs.getBoolean("aged"), whole);
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
    }

    /** A granted head of the line, whether other calls still wait behind it, and the limit's next slot. */
    private record Head(Grant grant, boolean moreWaiting, Instant nextSlot) {
    }

    /**
     * Grants the head at {@code slot} as send {@code seq}; if one is granted the beat moves to {@code next}, or, when
     * {@code restart} is given, to that long after the send (never before {@code next}).
     */
    private static Optional<Head> grantHead(Connection c, String limit, LineOrder order, Instant now, Instant slot,
                                            long seq, Instant next, Duration restart) throws SQLException {
        String sql = order.fairPrograms() ? GRANT_HEAD_FAIR : GRANT_HEAD_AGING; // the strict order grants runs
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int p = 1;
            Aging aging = order.aging();
            if (order.fairPrograms()) {
                p = grantable(ps, p, limit, now);
                ps.setString(p++, limit);
                ps.setString(p++, limit);
                p = grantable(ps, p, limit, now);
                ps.setString(p++, limit);
            } else {
                if (aging != null) {
                    Times.set(ps, p++, now);
                    ps.setLong(p++, aging.after().toMillis());
                    ps.setInt(p++, aging.upTo().rank());
                    ps.setInt(p++, aging.upTo().rank());
                }
                p = grantable(ps, p, limit, now);
            }
            Times.set(ps, p++, slot);
            ps.setLong(p++, seq);
            Times.set(ps, p++, next);
            if (restart == null) {
                ps.setNull(p++, java.sql.Types.BIGINT);
            } else {
                ps.setLong(p++, restart.toNanos() / 1_000);
            }
            ps.setLong(p++, seq);
            ps.setString(p, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Head(granted(rs, limit), rs.getBoolean("more_waiting"),
                        Times.get(rs, "next_slot")));
            }
        }
    }
}
