package dev.gate.engine;

import dev.gate.api.CallEndedException;
import dev.gate.api.GateException;
import dev.gate.api.OperatorAction;
import dev.gate.api.UnknownLimitException;
import dev.gate.store.ActionLog;
import dev.gate.store.Leases;
import dev.gate.store.OperatorPauses;
import dev.gate.store.OperatorCancels;
import dev.gate.wait.Waiters;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * What an operator does to the line by hand: pause a limit for a time and resume it, cancel a waiting call, drain a
 * program's waiting calls. Each is recorded with who did it in the transaction that does it, and logged; the calls
 * it ends are told to their waiters here (other instances' waiters hear it from their poll).
 */
public final class OperatorActions {

    private static final Logger LOG = Logger.getLogger(OperatorActions.class.getName());

    /** The longest pause an operator can set in one go. */
    public static final Duration LONGEST_PAUSE = Duration.ofDays(7);

    private final String owner;
    private final Admission admission;
    private final OperatorPauses pauses;
    private final OperatorCancels cancels;
    private final ActionLog log;
    private final Waiters waiters;
    private final Delivery delivery;
    private final GrantLoop loop;

    OperatorActions(String owner, Admission admission, OperatorPauses pauses, OperatorCancels cancels, ActionLog log,
                    Waiters waiters, Delivery delivery, GrantLoop loop) {
        this.owner = owner;
        this.admission = admission;
        this.pauses = pauses;
        this.cancels = cancels;
        this.log = log;
        this.waiters = waiters;
        this.delivery = delivery;
        this.loop = loop;
    }

    /**
     * No grant on {@code limit} for {@code span} (1 s to 7 days); a cool-down running longer is kept. Answers the
     * pause's end on the database's clock.
     */
    public Instant pause(String limit, Duration span, String actor) throws GateException {
        if (span.compareTo(Duration.ofSeconds(1)) < 0 || span.compareTo(LONGEST_PAUSE) > 0) {
            throw new IllegalArgumentException("a pause lasts 1 s to " + LONGEST_PAUSE.toDays() + " days, was " + span);
        }
        Instant until = admission.run(() -> pauses.pause(limit, span, actor))
                .orElseThrow(() -> new UnknownLimitException(limit));
        LOG.info(() -> "limit " + limit + " paused by " + actor + " for " + span + " (until " + until + ")");
        return until;
    }

    /**
     * Ends {@code limit}'s pause now, the operator's or the vendor's cool-down, and the vendor's count that holds it;
     * the line moves at its next slot.
     */
    public void resume(String limit, String actor) throws GateException {
        if (!admission.run(() -> pauses.resume(limit, actor))) {
            throw new UnknownLimitException(limit);
        }
        LOG.info(() -> "limit " + limit + " resumed by " + actor);
        loop.wake();
    }

    /** Cancels a waiting call of {@code limit}; false when it was not waiting there (granted, ended, elsewhere). */
    public boolean cancel(String limit, long callId, String actor) throws GateException {
        Optional<Leases.Cleared> cleared = admission.run(() -> cancels.cancelInLimit(callId, limit, actor));
        cleared.ifPresent(c -> callsEnded(List.of(c), "cancelled by operator " + actor));
        return cleared.isPresent();
    }

    /** Cancels every waiting call of {@code program} (of {@code limit} only, when given); answers how many. */
    public int drain(String program, String limit, String actor) throws GateException {
        List<Leases.Cleared> cleared = admission.run(() -> cancels.drain(program, limit, actor));
        callsEnded(cleared, "drained by operator " + actor);
        LOG.info(() -> "program " + program + " drained by " + actor + ": " + cleared.size() + " waiting calls "
                + "cancelled" + (limit == null ? "" : " on limit " + limit));
        return cleared.size();
    }

    /** The {@code count} most recent operator actions, newest first. */
    public List<OperatorAction> recent(int count) throws GateException {
        return admission.run(() -> log.recent(count)).stream()
                .map(a -> new OperatorAction(a.id(), a.at(), a.actor(), a.action(), a.target(), a.detail())).toList();
    }

    /** Calls that left the line by an operator's hand (a cancel, a drain, a change): logged, their waiters told. */
    void callsEnded(List<Leases.Cleared> cleared, String why) {
        for (Leases.Cleared c : cleared) {
            LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass() + " " + why);
            if (c.owner().equals(owner)) {
                waiters.ended(c.callId(), new CallEndedException("call " + c.callId() + " was " + why));
            }
        }
        delivery.leftWaiting(cleared.stream().map(Leases.Cleared::callId).toList());
    }

}
