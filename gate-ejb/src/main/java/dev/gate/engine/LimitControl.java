package dev.gate.engine;

import dev.gate.api.CallClass;

import dev.gate.domain.LimitRemoval;

import dev.gate.api.GateException;
import dev.gate.api.InvalidLimitException;
import dev.gate.api.LimitSpec;
import dev.gate.api.LimitStatus;
import dev.gate.api.UnknownLimitException;
import dev.gate.rules.CoolDownLadder;
import dev.gate.rules.LimitKey;
import dev.gate.rules.LimitName;
import dev.gate.rules.Aging;
import dev.gate.rules.LimitOptions;
import dev.gate.rules.LineSize;
import dev.gate.rules.Pace;
import dev.gate.rules.ReceiptMargin;
import dev.gate.store.LimitRemovals;
import dev.gate.store.LimitTable;
import dev.gate.store.LineView;
import dev.gate.store.StaleKeys;

import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/** The limits and their live numbers, as operators see and change them (caller work: turned away while paused). */
public final class LimitControl {

    private static final Logger LOG = Logger.getLogger(LimitControl.class.getName());

    private final Admission admission;
    private final LimitTable limits;
    private final LimitRemovals removals;
    private final OperatorActions operators;
    private final LineView view;
    private final LineView backgroundView;
    private final GrantLoop loop;
    private final StaleKeys staleKeys;

    LimitControl(Admission admission, LimitTable limits, LimitRemovals removals, LineView view,
                 LineView backgroundView, GrantLoop loop, StaleKeys staleKeys, OperatorActions operators) {
        this.operators = operators;
        this.staleKeys = staleKeys;
        this.admission = admission;
        this.limits = limits;
        this.removals = removals;
        this.view = view;
        this.backgroundView = backgroundView;
        this.loop = loop;
    }

    /** Every limit's live numbers. */
    public List<LimitStatus> status() throws GateException {
        return admission.run(view::limits).stream().map(LimitStatuses::of).toList();
    }

    /**
     * Every limit's live numbers, for a reader nobody waits on (the meters' refresh): it waits out a short stall of
     * the database instead of taking it for an outage.
     */
    public List<LimitStatus> statusInBackground() throws GateException {
        return admission.run(backgroundView::limits).stream().map(LimitStatuses::of).toList();
    }

    /** One limit's live numbers; empty when there is no such limit. */
    public Optional<LimitStatus> status(String limit) throws GateException {
        return admission.run(() -> view.limit(limit)).map(LimitStatuses::of);
    }

    /**
     * Creates or changes a limit as an operator declares it (the defaults are {@link LimitSpec}'s); true when
     * created. A change takes effect at the next slot.
     *
     * @throws InvalidLimitException a bad name or a rule out of range; nothing was changed
     */
    public boolean put(String name, LimitSpec spec) throws GateException {
        return put(name, spec, "engine");
    }

    /** The guard as the rules hold it (a rank), refused here by its class's name when it would lift nobody. */
    private static Aging aging(java.time.Duration after, CallClass upTo) {
        if (upTo == CallClass.BACKFILL) {
            throw new IllegalArgumentException("aging: upTo BACKFILL lifts nobody; name a higher class");
        }
        return new Aging(after, upTo == null ? -1 : upTo.rank());
    }

    /** A rule: sliding, or on the vendor's blocks when it has a zone (a reset time without a zone is midnight). */
    private static Pace pace(int calls, java.time.Duration window, java.time.ZoneId zone, java.time.LocalTime at) {
        if (zone == null) {
            if (at != null) {
                throw new IllegalArgumentException("aligned: a reset time needs its zone");
            }
            return new Pace(calls, window);
        }
        return Pace.aligned(calls, new dev.gate.rules.CalendarBlocks(window, zone,
                at == null ? java.time.LocalTime.MIDNIGHT : at));
    }

    /** As {@link #put(String, LimitSpec)}, recorded as {@code actor}'s action. */
    public boolean put(String name, LimitSpec spec, String actor) throws GateException {
        if (!LimitName.isValid(name)) {
            throw new InvalidLimitException("name: must be 1-64 of [A-Za-z0-9._-], was '" + name + "'");
        }
        Pace pace;
        LimitOptions options;
        try {
            pace = pace(spec.calls(), spec.window(), spec.alignedZone(), spec.alignedAt());
            options = new LimitOptions(spec.minInterval(),
                    spec.moreRules().stream().map(r -> pace(r.calls(), r.window(), r.alignedZone(), r.alignedAt()))
                            .toList(),
                    new CoolDownLadder(spec.coolDownLadder(), spec.retryFloor(), spec.stepDownAfter(),
                            spec.maxCoolDown()),
                    ReceiptMargin.ofNullable(spec.receiptMargin()),
                    spec.agingAfter() == null ? null : aging(spec.agingAfter(), spec.agingUpTo()),
                    spec.fairPrograms(), spec.burst(), spec.adaptive(), spec.keyed(), spec.parent(),
                    new LineSize(spec.maxWaiting() == null ? LineSize.DEFAULT_MAX_WAITING : spec.maxWaiting(),
                            spec.maxWaitingPerProgram(),
                            spec.maxKeys() == null ? LineSize.DEFAULT_MAX_KEYS : spec.maxKeys()));
            if (spec.keyed() && name.length() > LimitKey.TEMPLATE_MAX) {
                throw new IllegalArgumentException("a keyed limit's name is at most " + LimitKey.TEMPLATE_MAX
                        + " characters (its keys' names hold it)");
            }
            if (spec.burst() > pace.calls()) {
                throw new IllegalArgumentException("burst " + spec.burst() + " is more than the rule's " + pace.calls()
                        + " calls per window");
            }
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidLimitException("limit '" + name + "': " + e.getMessage());
        }
        if (spec.starvingAfter() != null && (spec.starvingAfter().isNegative() || spec.starvingAfter().isZero())) {
            throw new InvalidLimitException("limit '" + name + "': the starving mark must be positive");
        }
        LimitTable.Change change;
        try {
            change = admission.run(() -> limits.put(name, pace, options, spec.starvingAfter(), actor));
        } catch (LimitTable.Refused e) {
            throw new InvalidLimitException("limit '" + name + "': " + e.getMessage());
        }
        boolean created = change.created();
        LOG.info(() -> "limit " + name + (created ? " created: " : " changed: ") + pace.calls() + " calls per "
                + pace.window() + " by " + actor);
        tooCostly(change.tooCostly(), actor);
        keysCalls(change.keysCalls(), actor);
        if (!created) {
            if (!spec.keyed()) { // only a plain limit's keys' lines are strays (a keyed limit's keys are its lines)
                strays(name, actor);
            }
            follow(name);
        }
        loop.wake();
        return created;
    }

    /** Waiting calls the change made costlier than the limit's smallest rule left the line with it: told so. */
    private void tooCostly(List<dev.gate.store.Leases.Cleared> cancelled, String actor) {
        operators.callsEnded(cancelled, "cancelled: its cost is above the calls of the limit's smallest rule since "
                + actor + " changed the limit");
    }

    /** A keyed limit made plain: its keys' waiting calls left the line with the change, told so. */
    private void keysCalls(List<dev.gate.store.Leases.Cleared> cancelled, String actor) {
        operators.callsEnded(cancelled, "cancelled: " + actor + " made the limit plain, and its own rule would not "
                + "count its keys' calls");
    }

    /**
     * A join that met the change's commit (its key opened before it) may have put its call in a key's line of a limit
     * made plain: taken out once the change committed. A failure here is not the caller's (the change holds): logged.
     */
    private void strays(String name, String actor) {
        try {
            keysCalls(admission.run(() -> limits.strays(name, actor)), actor);
        } catch (GateException e) {
            LOG.warning(() -> "limit " + name + " changed, but its keys' calls were not looked for again ("
                    + e.getMessage() + ")");
        }
    }

    /** Changes only the limit's own rule (its options and more rules stay), recorded as {@code actor}'s action. */
    public void rePace(String name, Pace pace, String actor) throws GateException {
        Optional<List<dev.gate.store.Leases.Cleared>> found;
        try {
            found = admission.run(() -> limits.rePace(name, pace, actor));
        } catch (IllegalArgumentException e) { // an aligned limit's blocks stay: the new window must fit them
            throw new InvalidLimitException("limit '" + name + "': " + e.getMessage());
        }
        if (found.isEmpty()) {
            throw new UnknownLimitException(name);
        }
        LOG.info(() -> "limit " + name + " changed: " + pace.calls() + " calls per " + pace.window() + " by " + actor);
        tooCostly(found.get(), actor);
        follow(name);
        loop.wake();
    }

    /**
     * A keyed limit's open keys take its change (each key's rules are a copy of its template's). The change has
     * committed by now, so a failure here is not the caller's: the keys keep their old rules until the housekeeping
     * finds them older than their template (every {@code pruneEvery}, on any instance).
     */
    private void follow(String name) {
        try {
            int followed = admission.run(() -> staleKeys.follow(name));
            if (followed > 0) {
                LOG.info(() -> "limit " + name + ": its change reached its " + followed + " open keys");
            }
        } catch (GateException e) {
            LOG.warning(() -> "limit " + name + " changed, but its open keys did not all take the change yet ("
                    + e.getMessage() + "); the housekeeping brings them to it");
        }
    }

    /** Adds a limit declared at deployment unless the table has it (the table's values stay); true when added. */
    public boolean declare(String name, Pace pace) throws GateException {
        LimitName.require(name);
        return admission.run(() -> limits.declare(name, pace));
    }

    /** Removes a limit with no live calls, and its history. */
    public LimitRemoval remove(String name, String actor) throws GateException {
        LimitRemoval removal;
        try {
            removal = admission.run(() -> removals.remove(name, actor));
        } catch (LimitTable.Refused e) {
            throw new InvalidLimitException(e.getMessage());
        }
        if (removal.removed()) {
            LOG.info(() -> "limit " + name + " removed by " + actor);
        }
        return removal;
    }
}
