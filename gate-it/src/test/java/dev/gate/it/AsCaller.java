package dev.gate.it;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Gate;
import dev.gate.api.GateException;
import dev.gate.api.Outcome;
import dev.gate.api.Permit;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RunAs;
import jakarta.ejb.EJB;
import jakarta.ejb.Local;
import jakarta.ejb.Stateless;

import java.time.Duration;

/** How an application beside the gate calls it: through a component that runs as caller. */
@Stateless
@Local(Gate.class)
@PermitAll // its own callers are the application's; the gate checks the role it runs as
@RunAs("caller")
public class AsCaller implements Gate {

    @EJB(lookup = Gate.JNDI_NAME)
    Gate gate;

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait) throws GateException {
        return gate.acquire(limit, callClass, maxWait);
    }

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, Duration lease) throws GateException {
        return gate.acquire(limit, callClass, maxWait, lease);
    }

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, CallOptions options)
            throws GateException {
        return gate.acquire(limit, callClass, maxWait, options);
    }

    @Override
    public void complete(Permit permit, int vendorStatus) throws GateException {
        gate.complete(permit, vendorStatus);
    }

    @Override
    public void complete(Permit permit, int vendorStatus, Duration retryAfter) throws GateException {
        gate.complete(permit, vendorStatus, retryAfter);
    }

    @Override
    public void complete(Permit permit, dev.gate.api.Outcome outcome) throws GateException {
        gate.complete(permit, outcome);
    }

    @Override
    public Outcome awaitOutcome(Permit permit, Duration maxWait) throws GateException {
        return gate.awaitOutcome(permit, maxWait);
    }

    @Override
    public Attempt tryAcquire(String limit, CallClass callClass) throws GateException {
        return gate.tryAcquire(limit, callClass);
    }

    @Override
    public Attempt tryAcquire(String limit, CallClass callClass, CallOptions options) throws GateException {
        return gate.tryAcquire(limit, callClass, options);
    }

    @Override
    public Attempt tryConsume(String limit, CallClass callClass) throws GateException {
        return gate.tryConsume(limit, callClass);
    }

    @Override
    public Attempt tryConsume(String limit, CallClass callClass, CallOptions options) throws GateException {
        return gate.tryConsume(limit, callClass, options);
    }

    @Override
    public boolean abandon(Permit permit) throws GateException {
        return gate.abandon(permit);
    }
}
