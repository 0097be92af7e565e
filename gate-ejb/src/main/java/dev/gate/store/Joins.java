package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.domain.Estimate;
import dev.gate.domain.Grant;
import dev.gate.rules.Cost;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * A call joins the line: at the end of its class, alone ({@link #join}: the loop grants it) or with the grant pass
 * due on its limit made in the same transaction ({@link #joinAndGrant}: the fast path). A dedupe key joins the live
 * call of its key instead ({@link Joiners}); a submission key finds the call the program made with it before
 * ({@link SubmissionKeys}). Then the call is granted (by {@link Granter}), done (by {@link Outcomes}), cancelled or
 * expired.
 */
public final class Joins {

    // With a dedupe key, a live call of the same limit and key makes this a no-op (the unique index waits for a
    // concurrent submission to commit, so of ten at once exactly one inserts); so does the program's own earlier
    // call with the same submission key (gate_call_submission). Only while the line has room (LineSize): fewer than
    // max_waiting calls wait in it, and, with a cap of its own, fewer than max_waiting_per_program of this program's.
    // Concurrent joins may pass the caps by their number, no more.
    static final String JOIN = """
            INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at,
                                   deadline_at, concurrency_key, dedupe_key, submission_key, cost)
            SELECT l.name, ?, ?, ?, 'WAITING', ?, clock_timestamp() + ? * interval '1 millisecond',
                   clock_timestamp() + ? * interval '1 millisecond', ?, ?, ?, ?
            FROM gate_limit l WHERE l.name = ? AND NOT l.keyed AND %s < l.max_waiting
              AND (l.max_waiting_per_program IS NULL OR %s < l.max_waiting_per_program)
            ON CONFLICT DO NOTHING
            RETURNING id, deadline_at, enqueued_at, lease_expires_at"""
            .formatted(LineRoom.WAITING_IN_LINE, LineRoom.PROGRAM_WAITING);

    // The fast path's join: the insert and the limit's slot lock (with its first probe) in one round trip. Lock order
    // holds: the new row is invisible to every other transaction until commit, and the slot lock never waits.
    private static final String JOIN_AND_LOCK = "WITH j AS (" + JOIN + "),\nk AS (" + SlotLock.SQL + ")\n"
            + "SELECT j.*, k.* FROM (SELECT 1) one LEFT JOIN j ON true LEFT JOIN k ON true";

    // No such limit (or a keyed one, whose calls join their keys' lines): the join answers "unknown limit" instead of
    // failing on the foreign key.
    private static final String LIMIT_EXISTS = "SELECT 1 FROM gate_limit WHERE name = ? AND NOT keyed";

    /**
     * A submission's place: its own new call, or the live call with its dedupe key that it joined, or (a retry of a
     * submission whose answer was lost) the call the same submission key made before.
     */
    public record Joined(long id, boolean joinedExisting, boolean repeated) {
    }

    /**
     * A new call's row as its insert wrote it (a join's, or a group join's member's: {@link GroupJoins}); with the
     * slot as its statement locked it, on the fast path.
     */
    record Inserted(long id, Instant enqueuedAt, Instant leaseExpiresAt, Optional<SlotLock.Locked> slot) {
    }

    /** The line and the rate say the call cannot be granted before its deadline; nothing was joined. */
    public static final class DeadlineMiss extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Estimate estimate;

        DeadlineMiss(Estimate estimate) {
            super("deadline cannot be met", null, false, false);
            this.estimate = estimate;
        }

        public Estimate estimate() {
            return estimate;
        }
    }

    private final Tx tx;

    public Joins(Tx tx) {
        this.tx = tx;
    }

    /**
     * A join and the grant pass made in its transaction (nothing granted when it joined a live call), and the new
     * call's row as committed (empty when it joined a live call): what the statements wrote, no second read.
     */
    public record Entered(Joined joined, GrantPass pass, Optional<CallRow> row) {
    }

    /**
     * Adds a WAITING call to the end of its class in the line and, in the same transaction (one commit), grants what
     * is due on its limit: the fast path, often the new call itself. Empty when there is no such limit.
     * {@code beforeCommit} sees the new id while the row is still invisible to every other transaction, so a waiter
     * registered there can never miss its grant. With a deadline (checked against the estimate before the row
     * commits: a call that cannot make it throws {@link DeadlineMiss} and nothing joins), a concurrency key and a
     * dedupe key; any may be null. With a dedupe key and a live call of that key, the submission joins that call
     * instead (one send saved) and nothing is granted.
     *
     * <p>Lock order holds: the new row is invisible to others until commit, so nobody waits for it while this
     * transaction takes the slot row (SKIP LOCKED: if another holds it, the join commits alone and the loop grants).
     * If the grant fails, the join rolls back with it: a caller who hears "no" has nothing in the line.
     * {@code passBeforeCommit} sees the pass's grants before they commit (and before anyone hears of them).
     */
    public Optional<Entered> joinAndGrant(String limit, CallClass callClass, Cost cost, String program, String owner,
                                          Duration lease, Duration deadline, CallKeys keys,
                                          LongConsumer beforeCommit, Consumer<GrantPass> passBeforeCommit)
            throws StoreUnavailable {
        try {
            return joinAndGrantOnce(limit, callClass, cost, program, owner, lease, deadline, keys, beforeCommit,
                    passBeforeCommit);
        } catch (IllegalStateException e) {
            if (LimitGone.is(e)) {
                return Optional.empty(); // removed while the insert waited for its row: the limit is unknown
            }
            throw e;
        }
    }

    private Optional<Entered> joinAndGrantOnce(String limit, CallClass callClass, Cost cost, String program,
                                               String owner, Duration lease, Duration deadline, CallKeys keys,
                                               LongConsumer beforeCommit, Consumer<GrantPass> passBeforeCommit)
            throws StoreUnavailable {
        return tx.run(c -> {
            List<Inserted> inserted = new ArrayList<>(1);
            Optional<Joined> joined = join(c, limit, callClass, cost, program, owner, lease, deadline, keys, true,
                    inserted, beforeCommit);
            if (joined.isEmpty()) {
                return Optional.<Entered>empty();
            }
            if (inserted.isEmpty()) { // joined a live call, or found its own earlier one: nothing new to grant
                return Optional.of(new Entered(joined.get(), GrantPass.nothing(), Optional.empty()));
            }
            Inserted mine = inserted.get(0);
            GrantPass pass = Granter.grantDue(c, limit, mine.slot());
            passBeforeCommit.accept(pass);
            Optional<Grant> grant = pass.grants().stream().filter(g -> g.callId() == mine.id()).findFirst();
            CallRow row = grant.isPresent()
                    ? new CallRow(mine.id(), limit, callClass, program, owner, CallState.GRANTED, mine.enqueuedAt(),
                    grant.get().grantedAt().plus(lease), grant.get().grantedAt(), null, null, 0)
                    : new CallRow(mine.id(), limit, callClass, program, owner, CallState.WAITING, mine.enqueuedAt(),
                    mine.leaseExpiresAt(), null, null, null, 0);
            return Optional.of(new Entered(joined.get(), pass, Optional.of(row)));
        });
    }

    /** As {@link #joinAndGrant}, without the grant: the call only joins the line (the loop grants it). */
    public Optional<Joined> join(String limit, CallClass callClass, String program, String owner, Duration lease,
                                 Duration deadline, CallKeys keys, LongConsumer beforeCommit)
            throws StoreUnavailable {
        return tx.run(c -> join(c, limit, callClass, Cost.ONE, program, owner, lease, deadline, keys, false,
                new ArrayList<>(1), beforeCommit));
    }

    private static Optional<Joined> join(java.sql.Connection c, String limit, CallClass callClass, Cost cost,
                                         String program, String owner, Duration lease, Duration deadline,
                                         CallKeys keys, boolean lockSlot, List<Inserted> inserted,
                                         LongConsumer beforeCommit)
            throws SQLException {
        for (int attempt = 0; attempt < 3; attempt++) {
            if (keys.submission() != null) {
                Optional<Joined> before = SubmissionKeys.submittedBefore(c, owner, keys.submission(), limit);
                if (before.isPresent()) {
                    return before;
                }
            }
            Optional<Inserted> row = insert(c, limit, callClass, cost, program, owner, lease, deadline, keys,
                    lockSlot);
            if (row.isPresent()) {
                inserted.add(row.get());
                beforeCommit.accept(row.get().id());
                return Optional.of(new Joined(row.get().id(), false, false));
            }
            if (!exists(c, LIMIT_EXISTS, limit)) {
                return Optional.empty();
            }
            // a dedupe joiner joins its live call (it adds nothing to the line, full or not)
            Optional<Long> live = keys.dedupe() == null ? Optional.empty()
                    : Joiners.liveWithKey(c, limit, keys.dedupe());
            if (live.isPresent()) {
                if (Joiners.add(c, live.get(), program, owner, keys.submission(), limit)) {
                    return Optional.of(new Joined(live.get(), true, false));
                }
                continue; // a retry of this very submission joined first: the next attempt finds it by its key
            }
            Optional<LineRoom.LineFull> full = LineRoom.full(c, limit, program);
            if (full.isPresent()) {
                // a retry of this very submission that committed meanwhile answers with its call, full or not
                Optional<Joined> before = keys.submission() == null ? Optional.empty()
                        : SubmissionKeys.submittedBefore(c, owner, keys.submission(), limit);
                if (before.isPresent()) {
                    return before;
                }
                throw full.get();
            }
            // a concurrent retry of the same submission committed first (found at the next attempt), or the dedupe
            // key's live call finished between the two statements: submit anew
        }
        throw new SQLException("the keys " + keys + " of limit " + limit + " keep changing hands");
    }

    private static Optional<Inserted> insert(java.sql.Connection c, String limit, CallClass callClass, Cost cost,
                                             String program, String owner, Duration lease, Duration deadline,
                                             CallKeys keys, boolean lockSlot) throws SQLException {
        long newId;
        Instant deadlineAt;
        Instant enqueuedAt;
        Instant leaseExpiresAt;
        Optional<SlotLock.Locked> slot = Optional.empty();
        try (PreparedStatement ps = c.prepareStatement(lockSlot ? JOIN_AND_LOCK : JOIN)) {
            ps.setInt(1, callClass.rank());
            ps.setString(2, program);
            ps.setString(3, owner);
            ps.setInt(4, Math.toIntExact(lease.toMillis()));
            ps.setLong(5, lease.toMillis());
            if (deadline == null) {
                ps.setNull(6, java.sql.Types.BIGINT);
            } else {
                ps.setLong(6, deadline.toMillis());
            }
            ps.setString(7, keys.concurrency());
            ps.setString(8, keys.dedupe());
            ps.setString(9, keys.submission());
            ps.setInt(10, cost.units());
            ps.setString(11, limit);
            ps.setString(12, program);
            if (lockSlot) {
                ps.setString(13, limit);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                newId = rs.getLong("id");
                if (rs.wasNull()) {
                    return Optional.empty(); // nothing inserted (JOIN_AND_LOCK answers one row whatever happened)
                }
                deadlineAt = Times.get(rs, "deadline_at");
                enqueuedAt = Times.get(rs, "enqueued_at");
                leaseExpiresAt = Times.get(rs, "lease_expires_at");
                if (lockSlot) {
                    slot = SlotLock.locked(rs).map(l -> l.probedNotBefore(enqueuedAt));
                }
            }
        }
        if (deadlineAt != null) {
            Optional<Estimate> estimate = Estimates.of(c, newId);
            if (estimate.isPresent() && estimate.get().grantAt().isAfter(deadlineAt)) {
                throw new DeadlineMiss(estimate.get()); // rolls the join back
            }
        }
        return Optional.of(new Inserted(newId, enqueuedAt, leaseExpiresAt, slot));
    }

    private static boolean exists(java.sql.Connection c, String sql, String arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, arg);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
