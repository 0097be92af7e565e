package dev.gate.engine;

import dev.gate.client.CallClass;
import dev.gate.client.CallOptions;
import dev.gate.client.DeadlineException;
import dev.gate.client.GateException;
import dev.gate.client.GatePausedException;
import dev.gate.client.UnknownLimitException;
import dev.gate.line.LimitName;
import dev.gate.store.Calls;
import dev.gate.store.Grant;
import dev.gate.store.Granter;
import dev.gate.store.StoreUnavailable;
import dev.gate.wait.Waiters;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one way into the line, for this instance's callers and for programs alike: the join (one short transaction),
 * the grant tried at once in the caller's own transaction (the fast path: the slot is due and nobody is ahead), and
 * the way out for a caller that stops waiting. A caller hears of a failure only after its call has left the line.
 */
final class Joining {

    private static final Logger LOG = Logger.getLogger(Joining.class.getName());

    private final EngineSettings settings;
    private final Admission admission;
    private final Calls calls;
    private final Granter granter;
    private final Waiters waiters;
    private final Delivery delivery;
    private final GrantLoop loop;
    private final Health health;

    Joining(EngineSettings settings, Admission admission, Calls calls, Granter granter, Waiters waiters,
            Delivery delivery, GrantLoop loop, Health health) {
        this.settings = settings;
        this.admission = admission;
        this.calls = calls;
        this.granter = granter;
        this.waiters = waiters;
        this.delivery = delivery;
        this.loop = loop;
        this.health = health;
    }

    /** A submission's place in the line, and (for a caller waiting here) the future of its grant. */
    record Entry(long id, boolean joinedExisting, CompletableFuture<Grant> granted) {
    }

    /**
     * Joins the line. With {@code waiter}, a waiter is registered before the call's row commits, so no grant can
     * come before it; if the join fails after that, the waiter goes and the call (if its row committed after all) is
     * ended by the orphan sweep. A dedupe key, when given, joins a live call of the same key instead.
     */
    Entry enter(String limit, CallClass callClass, String program, String owner, CallOptions options,
                String dedupeKey, boolean waiter) throws GateException {
        Duration lease = checkedLease(limit, callClass, options.lease());
        AtomicReference<Long> registered = new AtomicReference<>();
        AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
        try {
            Calls.Joined joined = admission.run(() -> calls.join(limit, callClass, program, owner, lease,
                    options.deadline(), options.concurrencyKey(), dedupeKey, callId -> {
                        if (waiter) {
                            Long before = registered.getAndSet(callId);
                            if (before != null) {
                                waiters.forget(before); // an earlier try that rolled back
                            }
                            granted.set(waiters.register(callId));
                        }
                    })).orElseThrow(() -> new UnknownLimitException(limit));
            if (joined.joinedExisting()) {
                LOG.fine(() -> program + " joined call " + joined.id() + " of limit " + limit + " by its dedupe key");
            } else {
                LOG.fine(() -> "call " + joined.id() + " limit=" + limit + " class=" + callClass
                        + " joined the line for " + program);
            }
            return new Entry(joined.id(), joined.joinedExisting(), joined.joinedExisting() ? null : granted.get());
        } catch (Calls.DeadlineMiss miss) {
            Duration wait = Duration.between(miss.estimate().now(), miss.estimate().grantAt());
            LOG.info(() -> "a call on limit " + limit + " was refused: its deadline of " + options.deadline()
                    + " is shorter than the estimated wait of " + wait);
            throw new DeadlineException(limit, options.deadline(), miss.estimate().grantAt(), wait);
        } catch (GateException | RuntimeException e) {
            Long id = registered.get();
            if (id != null) {
                waiters.forget(id);
            }
            throw e;
        }
    }

    /**
     * The caller's own grant transaction, right after its join. If it fails, the caller hears of it only after its
     * call has left the line: nothing stays in the line renewed for a caller who was told "no". If the call was
     * granted meanwhile (by another instance's loop), the caller takes that grant as usual.
     */
    void fastPath(String limit, long callId) throws GateException {
        GateException failure;
        try {
            loop.passMade(admission.run(() -> granter.grantDue(limit), 1));
            return;
        } catch (GateException e) {
            failure = e;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "the fast path of call " + callId + " limit=" + limit + " failed", e);
            failure = new GateException("the gate failed to grant call " + callId + ": " + e.getMessage(), e);
        }
        try {
            if (!calls.cancel(callId)) {
                return; // granted (or ended) meanwhile: its waiter, or its program, learns of it as usual
            }
            waiters.drop(callId);
            delivery.leftWaiting(List.of(callId));
            LOG.info("call " + callId + " limit=" + limit + " cancelled: its grant attempt failed ("
                    + failure.getMessage() + ")");
        } catch (StoreUnavailable | RuntimeException e) {
            // the database cannot take the cancel now: the orphan sweep ends the call once it can
            waiters.orphaned(callId);
            if (!(failure instanceof GatePausedException) && e instanceof StoreUnavailable lost) {
                health.failed(lost);
            }
        }
        throw failure;
    }

    /** Its waiter is gone: the call leaves the line, or its grant (nobody will take it) is ended. */
    void leave(long callId, String why) {
        try {
            admission.run(() -> calls.leave(callId)).ifPresent(state -> LOG.info(() -> "call " + callId + " "
                    + state.name().toLowerCase(Locale.ROOT) + ": " + why));
            waiters.drop(callId);
        } catch (GateException | RuntimeException e) {
            waiters.orphaned(callId); // ended by the orphan sweep once the database answers
        }
    }

    private Duration checkedLease(String limit, CallClass callClass, Duration lease) throws UnknownLimitException {
        Objects.requireNonNull(callClass, "callClass");
        if (!LimitName.isValid(limit)) {
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
