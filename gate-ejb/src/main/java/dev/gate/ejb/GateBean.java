package dev.gate.ejb;

import dev.gate.client.CallClass;
import dev.gate.client.CallEndedException;
import dev.gate.client.Gate;
import dev.gate.client.GateException;
import dev.gate.client.Permit;
import dev.gate.client.GateTimeoutException;
import dev.gate.client.UnknownLimitException;
import dev.gate.line.CallState;
import dev.gate.line.LimitName;
import dev.gate.store.CallRow;
import dev.gate.store.Grant;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Remote;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * The {@link Gate} view. A caller joins the line (one short transaction), tries the grant at once (the fast path
 * when the slot is due and nobody is ahead), and otherwise waits on its future until the slot loop grants it.
 * No transaction is held while waiting; bean-managed concurrency, so waiting callers never queue on a bean lock.
 */
@Singleton
@Remote(Gate.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class GateBean implements Gate {

    /** Lease of an EJB caller's call; this instance renews it while the caller waits. */
    static final Duration LEASE = Duration.ofSeconds(30);

    private static final Logger LOG = Logger.getLogger(GateBean.class.getName());

    @EJB
    Line line;

    @EJB
    SlotLoop slotLoop;

    @Resource
    SessionContext context;

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait) throws GateException {
        Objects.requireNonNull(callClass, "callClass");
        Objects.requireNonNull(maxWait, "maxWait");
        if (!LimitName.isValid(limit)) {
            throw new UnknownLimitException(limit);
        }
        long deadline = System.nanoTime() + maxWait.toNanos();
        long id = line.calls().join(limit, callClass, program(), line.owner(), LEASE, line.waiters()::register);
        CompletableFuture<Grant> granted = line.waiters().register(id);
        try {
            slotLoop.settle(line.granter().grantDue(limit));
            return permit(granted.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return giveUp(id, limit, callClass, maxWait);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GateException ge) {
                throw ge;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            line.calls().cancel(id);
            throw new CallEndedException("call " + id + " was cancelled: the waiting thread was interrupted");
        } finally {
            line.waiters().forget(id);
        }
    }

    @Override
    public void complete(Permit permit, int vendorStatus) throws GateException {
        if (!line.calls().complete(permit.callId(), vendorStatus)) {
            String state = line.calls().find(permit.callId()).map(c -> c.state().name()).orElse("unknown");
            throw new GateException("call " + permit.callId() + " cannot be completed: it is " + state
                    + ", not GRANTED");
        }
        LOG.fine(() -> "call " + permit.callId() + " limit=" + permit.limit() + " class=" + permit.callClass()
                + " done: vendor answered " + vendorStatus);
    }

    /** The wait ran out: leave the line, unless the grant came first (then it is the caller's). */
    private Permit giveUp(long id, String limit, CallClass callClass, Duration maxWait) throws GateException {
        if (line.calls().cancel(id)) {
            LOG.info(() -> "call " + id + " limit=" + limit + " class=" + callClass + " cancelled: not granted within "
                    + maxWait);
            throw new GateTimeoutException(limit, id, maxWait);
        }
        Optional<CallRow> row = line.calls().find(id);
        if (row.isPresent() && row.get().state() == CallState.GRANTED) {
            CallRow r = row.get();
            return new Permit(r.id(), r.limit(), r.callClass(), r.enqueuedAt(), r.grantedAt());
        }
        throw new CallEndedException("call " + id + " left the line without a grant: "
                + row.map(r -> r.state().name()).orElse("gone"));
    }

    private static Permit permit(Grant g) {
        return new Permit(g.callId(), g.limit(), g.callClass(), g.enqueuedAt(), g.grantedAt());
    }

    private String program() {
        String name = context.getCallerPrincipal() == null ? null : context.getCallerPrincipal().getName();
        if (name == null || name.isBlank() || name.equals("anonymous")) {
            return "ejb";
        }
        return name.length() <= 64 ? name : name.substring(0, 64);
    }
}
