package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.rules.Cost;
import dev.gate.api.DeadlineException;
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
import dev.gate.store.SubmissionKeyReused;
import dev.gate.domain.Grant;
import dev.gate.wait.StateWatches;
import dev.gate.wait.Waiters;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one way into the line, for this instance's callers and for programs alike: the join and, in the same short
 * transaction, the grant of what is due (the fast path: the slot is due and nobody is ahead), and the way out for a
 * caller that stops waiting. A caller hears of a failure only after its call has left the line. It first tries the
 * free line ({@link FreeLine}), then joins with the calls arriving with it ({@link GroupJoining}) or alone; who hears
 * of a grant is {@link Hearers}'.
 */
final class Joining {

    private static final Logger LOG = Logger.getLogger(Joining.class.getName());

    /** A full line's refusals are logged at most once in this span per limit (each is counted). */
    static final Duration FULL_LOGGED_EVERY = Duration.ofMinutes(1);

    private final EngineSettings settings;
    private final Admission admission;
    private final Joins joins;
    private final OwnedCalls owned;
    private final LineRoom room;
    private final Waiters waiters;
    private final GrantLoop loop;
    private final Tally tally;
    private final KeyedLines lines;
    private final Hearers hearers;
    private final FreeLine freeLine;
    private final GroupJoining together;
    private final CallCosts costs;

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
            Tally tally, KeyedLines lines, CallCosts costs) {
        this.costs = costs;
        this.hearers = new Hearers(waiters, watches);
        this.freeLine = new FreeLine(admission, freeSlot, waiters, tally);
        this.together = new GroupJoining(admission, groupJoins, hearers, loop, tally);
        this.tally = tally;
        this.lines = lines;
        this.settings = settings;
        this.admission = admission;
        this.joins = joins;
        this.owned = owned;
        this.room = room;
        this.waiters = waiters;
        this.loop = loop;
    }

    /** The free line (for tests: its groups). */
    FreeLine freeLine() {
        return freeLine;
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
        Cost cost = costs.checked(limit, parent, options);
        if (parent == null && keys.dedupe() == null && keys.concurrency() == null) {
            Optional<Grant> free = freeLine.take(limit, callClass, cost, program, owner, lease, keys.submission());
            if (free.isPresent()) {
                Grant g = free.get();
                tally.granted(g);
                LOG.fine(() -> "call " + g.callId() + " limit=" + limit + " class=" + callClass
                        + " granted at once (the line was free) to " + program);
                return new Entry(g.callId(), false, false, CompletableFuture.completedFuture(g), // never waited
                        Optional.of(new CallRow(g.callId(), limit, callClass, program, owner, CallState.GRANTED,
                                g.enqueuedAt(), g.grantedAt().plus(lease), g.grantedAt(), null, null, 0)), null);
            }
            if (keys.submission() == null && options.deadline() == null && cost.isOne() && !GroupJoining.ALONE) {
                // calls arriving together join together; one the group could not take joins alone, below
                Optional<Entry> grouped = together.grouped(limit, callClass, program, owner, lease, hears);
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
                entered = admission.run(() -> joins.joinAndGrant(limit, callClass, cost, program, owner, lease,
                        options.deadline(), keys, callId -> hearers.registered(callId, hears, inserted, granted, watch),
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
                throw hearers.failed(inserted.get(), e);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "a call on limit " + limit + " failed to join", e);
                // the operators' log has the cause; the caller hears the step, not the database's text
                throw hearers.failed(inserted.get(), new GateFailedException("the gate failed to take a call on limit "
                        + limit + "; nothing joined (see the gate's log)", e));
            }
            Joins.Joined joined = entered.joined();
            if (joined.repeated()) {
                LOG.info(() -> "call " + joined.id() + " limit=" + limit + " class=" + callClass + ": " + program
                        + " submitted it again (its first answer was lost); the same call answers"
                        + (joined.joinedExisting() ? " (it joined it by its dedupe key)" : ""));
                return new Entry(joined.id(), joined.joinedExisting(), true, null, Optional.empty(), null);
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
        return together.groups();
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
