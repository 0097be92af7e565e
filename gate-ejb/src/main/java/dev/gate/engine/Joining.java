package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.DeadlineException;
import dev.gate.api.GateBusyException;
import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.api.GatePausedException;
import dev.gate.api.LineFullException;
import dev.gate.api.SubmissionKeyReusedException;
import dev.gate.api.UnknownLimitException;
import dev.gate.api.CallState;
import dev.gate.rules.LimitKey;
import dev.gate.rules.LimitName;
import dev.gate.rules.ProgramName;
import dev.gate.store.CallKeys;
import dev.gate.domain.CallRow;
import dev.gate.store.FreeSlot;
import dev.gate.store.GroupJoins;
import dev.gate.store.Joins;
import dev.gate.store.LineRoom;
import dev.gate.store.OwnedCalls;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.SubmissionKeyReused;
import dev.gate.domain.Grant;
import dev.gate.wait.StateWatches;
import dev.gate.wait.Waiters;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one way into the line, for this instance's callers and for programs alike: the join and, in the same short
 * transaction, the grant of what is due (the fast path: the slot is due and nobody is ahead), and the way out for a
 * caller that stops waiting. A caller hears of a failure only after its call has left the line.
 */
final class Joining {

    private static final Logger LOG = Logger.getLogger(Joining.class.getName());

    /** A full line's refusals are logged at most once in this span per limit (each is counted). */
    static final Duration FULL_LOGGED_EVERY = Duration.ofMinutes(1);

    private final EngineSettings settings;
    private final Admission admission;
    private final Joins joins;
    private final GroupJoins groupJoins;
    private final OwnedCalls owned;
    private final LineRoom room;
    private final Waiters waiters;
    private final GrantLoop loop;
    private final Tally tally;
    private final KeyedLines lines;
    private final FreeSlot freeSlot;
    private final StateWatches<CallRow> watches;
    private final JoinGroups<Member, Optional<CallRow>> groups = new JoinGroups<>(this::joinGroup);
    /** Benchmarks only ({@code -Dgate.join.alone=true}): every call joins on its own, as before group joins. */
    private static final boolean ALONE = Boolean.getBoolean("gate.join.alone");

    /** Who hears that the call left WAITING: registered before its row commits, so no grant can come before it. */
    enum Hears {
        /** Nobody here (a program over HTTP that will read its call when it asks). */
        NOBODY,
        /** A caller of this instance waiting on the grant's future ({@link Entry#granted}). */
        WAITER,
        /** A watch ({@link StateWatches}): an HTTP answer held until the call leaves WAITING. */
        WATCH
    }

    Joining(EngineSettings settings, Admission admission, Joins joins, GroupJoins groupJoins, LineRoom room,
            OwnedCalls owned, FreeSlot freeSlot, Waiters waiters, StateWatches<CallRow> watches, GrantLoop loop,
            Tally tally, KeyedLines lines) {
        this.freeSlot = freeSlot;
        this.watches = watches;
        this.tally = tally;
        this.lines = lines;
        this.settings = settings;
        this.admission = admission;
        this.joins = joins;
        this.groupJoins = groupJoins;
        this.owned = owned;
        this.room = room;
        this.waiters = waiters;
        this.loop = loop;
    }

    /** A submission's place in the line, and (for a caller waiting here) the future of its grant. */
    /**
     * @param granted     a waiter's grant ({@link Hears#WAITER})
     * @param leftWaiting a new call's watch ({@link Hears#WATCH}): completes when it leaves WAITING
     */
    record Entry(long id, boolean joinedExisting, boolean repeated, CompletableFuture<Grant> granted,
                 Optional<CallRow> row, CompletableFuture<CallRow> leftWaiting) {
    }

    /**
     * Joins the line and, in the same transaction, grants what is due on the limit (the fast path: the slot is due
     * and nobody is ahead, so the new call goes at once). Who {@code hears} of its grant is registered before the
     * call's row commits, so no grant can come before it. If the transaction fails, the join rolls back with it:
     * the caller hears "no" with nothing in the line; where nobody can know whether it committed (the database was
     * lost at commit), the call is left to the orphan sweep. A dedupe key, when given, joins a live call of the same
     * key instead; a submission key the program used before answers the call it made then.
     */
    Entry enter(String limit, CallClass callClass, String program, String owner, CallOptions options,
                CallKeys keys, Hears hears) throws GateException {
        try {
            return lines.onLine(limit, options, (line, parent) -> enterLine(line, parent, callClass, program, owner,
                    options, keys, hears));
        } catch (LineFullException full) {
            counted(limit, callClass, program, full);
            throw full;
        }
    }

    /** A refusal for a full line is counted (the status page's "line full" figure); the log hears when it fills. */
    private void counted(String limit, CallClass callClass, String program, LineFullException full) {
        try {
            LineRoom.FullCount n = admission.run(() -> room.countFull(limit, FULL_LOGGED_EVERY));
            tally.lineFull(limit);
            if (n.toLog()) {
                LOG.info(() -> "limit=" + limit + " class=" + callClass + ": a call of " + program + " was refused: "
                        + full.getMessage() + " (" + n.refused() + " refused so far; the next refusals within "
                        + FULL_LOGGED_EVERY.toSeconds() + " s are counted, not logged)");
            }
        } catch (GateException | RuntimeException e) {
            LOG.fine(() -> "limit " + limit + ": a full line's refusal was not counted (" + e.getMessage() + ")");
        }
    }

    /**
     * {@link #enter} on the line the call joins (its limit's, or its key's; {@code parent}: a key's parent). A line
     * that may be free is first tried in one statement ({@link FreeSlot#takeIfFree}); only a call it does not grant
     * joins the line.
     */
    private Entry enterLine(String limit, String parent, CallClass callClass, String program, String owner,
                            CallOptions options, CallKeys keys, Hears hears) throws GateException {
        Duration lease = checkedLease(settings, limit, program, callClass, options.lease());
        if (parent == null && keys.dedupe() == null && keys.concurrency() == null) {
            Optional<Grant> free = freeLine(limit, callClass, program, owner, lease, keys.submission());
            if (free.isPresent()) {
                Grant g = free.get();
                tally.granted(g);
                LOG.fine(() -> "call " + g.callId() + " limit=" + limit + " class=" + callClass
                        + " granted at once (the line was free) to " + program);
                return new Entry(g.callId(), false, false, CompletableFuture.completedFuture(g), // never waited
                        Optional.of(new CallRow(g.callId(), limit, callClass, program, owner, CallState.GRANTED,
                                g.enqueuedAt(), g.grantedAt().plus(lease), g.grantedAt(), null, null, 0)), null);
            }
            if (keys.submission() == null && options.deadline() == null && !ALONE) {
                // calls arriving together join together; one the group could not take joins alone, below
                Optional<Entry> grouped = grouped(limit, callClass, program, owner, lease, hears);
                if (grouped.isPresent()) {
                    return grouped.get();
                }
            }
        }
        // the pass's grants are delivered from here once committed, not from the instance's own announcement
        try (Delivery.Pending pending = loop.pending()) {
            AtomicReference<Long> inserted = new AtomicReference<>();
            AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
            AtomicReference<CompletableFuture<CallRow>> watch = new AtomicReference<>();
            Joins.Entered entered;
            try {
                entered = admission.run(() -> joins.joinAndGrant(limit, callClass, program, owner, lease,
                        options.deadline(), keys, callId -> registered(callId, hears, inserted, granted, watch),
                        pending::hold)).orElseThrow(() -> new UnknownLimitException(limit));
            } catch (Joins.DeadlineMiss miss) {
                Duration wait = Duration.between(miss.estimate().now(), miss.estimate().grantAt());
                LOG.info(() -> "a call on limit " + limit + " was refused: its deadline of " + options.deadline()
                        + " is shorter than the estimated wait of " + wait);
                throw new DeadlineException(limit, options.deadline(), miss.estimate().grantAt(), wait);
            } catch (SubmissionKeyReused e) {
                throw new SubmissionKeyReusedException(e.getMessage());
            } catch (LineRoom.LineFull full) {
                throw new LineFullException(limit, full.getMessage(), full.retryAfter());
            } catch (GateException e) {
                if (e instanceof GatePausedException) {
                    tally.turnedAwayPaused(); // a call, not a status read or an operator's action
                }
                throw failed(inserted.get(), e);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "a call on limit " + limit + " failed to join", e);
                // the operators' log has the cause; the caller hears the step, not the database's text
                throw failed(inserted.get(), new GateFailedException("the gate failed to take a call on limit " + limit
                        + "; nothing joined (see the gate's log)", e));
            }
            Joins.Joined joined = entered.joined();
            if (joined.repeated()) {
                LOG.info(() -> "call " + joined.id() + " limit=" + limit + " class=" + callClass + ": " + program
                        + " submitted it again (its first answer was lost); the same call answers");
                return new Entry(joined.id(), false, true, null, Optional.empty(), null);
            }
            if (joined.joinedExisting()) {
                tally.dedupeJoined(limit);
                LOG.fine(() -> program + " joined call " + joined.id() + " of limit " + limit + " by its dedupe key");
                return new Entry(joined.id(), true, false, null, Optional.empty(), null);
            }
            LOG.fine(() -> "call " + joined.id() + " limit=" + limit + " class=" + callClass + " joined the line for "
                    + program);
            loop.passMade(entered.pass());
            return new Entry(joined.id(), false, false, granted.get(), entered.row(), watch.get());
        }
    }

    /** The groups of calls joining together (for tests: who waits for a group's join). */
    JoinGroups<?, ?> groups() {
        return groups;
    }

    /**
     * One call of a group join, and what the join registers for it before its row commits (as the join of one
     * does): the waiter or watch that hears of its grant, and the id it got (a retried group's earlier id dropped).
     */
    private final class Member {
        final CallClass callClass;
        final String program;
        final String owner;
        final Duration lease;
        final Hears hears;
        final AtomicReference<Long> inserted = new AtomicReference<>();
        final AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
        final AtomicReference<CompletableFuture<CallRow>> watch = new AtomicReference<>();

        Member(CallClass callClass, String program, String owner, Duration lease, Hears hears) {
            this.callClass = callClass;
            this.program = program;
            this.owner = owner;
            this.lease = lease;
            this.hears = hears;
        }

        void beforeCommit(long callId) {
            registered(callId, hears, inserted, granted, watch);
        }
    }

    /** Who hears of {@code callId}'s grant, registered before its row commits; a rolled-back try's is dropped. */
    private void registered(long callId, Hears hears, AtomicReference<Long> inserted,
                            AtomicReference<CompletableFuture<Grant>> granted,
                            AtomicReference<CompletableFuture<CallRow>> watch) {
        Long before = inserted.getAndSet(callId);
        if (before != null) {
            waiters.drop(before); // an earlier try that rolled back: nothing to sweep
        }
        if (hears == Hears.WAITER) {
            granted.set(waiters.register(callId));
        } else if (hears == Hears.WATCH) {
            // a rolled-back join's watch ends at the next poll (Delivery)
            watch.set(watches.watch(callId));
        }
    }

    /**
     * The call joins with whoever arrives at the limit with it ({@link JoinGroups}); empty when the group could not
     * take it (a cap, a limit whose calls join one by one): it then joins alone. A group's failure is the call's.
     */
    private Optional<Entry> grouped(String limit, CallClass callClass, String program, String owner, Duration lease,
                                    Hears hears) throws GateException {
        Member m = new Member(callClass, program, owner, lease, hears);
        Optional<CallRow> row;
        try {
            row = groups.join(limit, m);
        } catch (GateException e) {
            if (e instanceof GatePausedException) {
                tally.turnedAwayPaused();
            }
            throw failed(m.inserted.get(), e);
        } catch (Exception e) { // logged once, by the group's leader (joinGroup)
            throw failed(m.inserted.get(), new GateFailedException("the gate failed to take a call on limit " + limit
                    + "; nothing joined (see the gate's log)", e));
        }
        if (row.isEmpty()) {
            return Optional.empty();
        }
        CallRow r = row.get();
        LOG.fine(() -> "call " + r.id() + " limit=" + limit + " class=" + callClass + " joined the line for "
                + program + " (with the calls that arrived with it)");
        return Optional.of(new Entry(r.id(), false, false, m.granted.get(), row, m.watch.get()));
    }

    /** A group's join: one statement and one commit for its members, the pass made under it delivered after. */
    private List<Optional<CallRow>> joinGroup(String limit, List<Member> members) throws GateException {
        try (Delivery.Pending pending = loop.pending()) {
            GroupJoins.GroupEntered entered = admission.run(() -> groupJoins.joinGroupAndGrant(limit, members.stream()
                    .map(m -> new GroupJoins.GroupMember(m.callClass, m.program, m.owner, m.lease, m::beforeCommit))
                    .toList(), pending::hold));
            loop.passMade(entered.pass());
            return entered.rows();
        } catch (RuntimeException e) {
            // the operators' log has the cause once; each member hears the step, not the database's text
            LOG.log(Level.SEVERE, members.size() + " calls on limit " + limit + " failed to join together", e);
            throw e;
        }
    }

    /**
     * The join's transaction failed after its row was written: rolled back (nothing in the line), unless the
     * database was lost (then nobody knows whether it committed, and the orphan sweep ends the call if it did).
     */
    private GateException failed(Long callId, GateException e) {
        if (callId != null) {
            if (e instanceof GatePausedException) {
                waiters.orphaned(callId);
            } else {
                waiters.drop(callId);
            }
        }
        return e;
    }

    /**
     * The free line's one statement. Without the program's own key the call gets one, so that a grant whose answer
     * was lost is ended once the database answers again ({@link Waiters#unansweredTry}): the caller hears "paused",
     * and nothing stays granted to nobody. A busy moment is no answer: the join goes on as usual.
     */
    private Optional<Grant> freeLine(String limit, CallClass callClass, String program, String owner,
                                     Duration lease, String submissionKey) throws GateException {
        String key = submissionKey != null ? submissionKey : "free:" + UUID.randomUUID();
        try {
            return admission.run(() -> {
                try {
                    return freeSlot.takeIfFree(limit, callClass, program, owner, lease, key);
                } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                    if (submissionKey == null) {
                        waiters.unansweredTry(owner, key);
                    }
                    throw lost;
                }
            }, 1);
        } catch (GateBusyException busy) {
            return Optional.empty();
        } catch (GatePausedException paused) {
            tally.turnedAwayPaused(); // a call, as at the join
            throw paused;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "a call on limit " + limit + " failed on its free line", e);
            throw new GateFailedException("the gate failed to take a call on limit " + limit
                    + "; nothing joined (see the gate's log)", e);
        }
    }

    /** Its waiter is gone: the call leaves the line, or its grant (nobody will take it) is ended. */
    void leave(long callId, String why) {
        try {
            admission.run(() -> owned.leave(callId)).ifPresent(state -> LOG.info(() -> "call " + callId + " "
                    + state.name().toLowerCase(Locale.ROOT) + ": " + why));
            waiters.drop(callId);
        } catch (GateException | RuntimeException e) {
            waiters.orphaned(callId); // ended by the orphan sweep once the database answers
        }
    }

    /**
     * The call's lease, checked against the settings' range (the default when null); the limit's name checked, and
     * the program's ({@link ProgramName}).
     */
    static Duration checkedLease(EngineSettings settings, String limit, String program, CallClass callClass,
                                 Duration lease) throws UnknownLimitException {
        Objects.requireNonNull(callClass, "callClass");
        ProgramName.require(program);
        if (!LimitName.isValid(limit) && !LimitKey.isKeyName(limit)) {
            throw new UnknownLimitException(limit);
        }
        Duration leaseTime = lease == null ? settings.defaultLease() : lease;
        if (leaseTime.compareTo(settings.minLease()) < 0 || leaseTime.compareTo(settings.maxLease()) > 0) {
            throw new IllegalArgumentException("lease must be within " + settings.minLease() + " and "
                    + settings.maxLease() + ": " + leaseTime);
        }
        return leaseTime;
    }
}
