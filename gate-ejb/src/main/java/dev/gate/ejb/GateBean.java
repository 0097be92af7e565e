package dev.gate.ejb;

import dev.gate.app.Line;
import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Gate;
import dev.gate.api.GateException;
import dev.gate.api.Outcome;
import dev.gate.api.Permit;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Remote;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.time.Duration;

/**
 * The remote {@link Gate} view: the caller's principal names its program; everything else is {@link Line}'s. Only a
 * caller in the {@code caller} role may use it, as over HTTP: an application beside the gate calls from a component
 * that runs as caller ({@code @RunAs("caller")}); anyone else gets {@code EJBAccessException}.
 */
@Singleton
@DeclareRoles(GateBean.CALLER)
@RolesAllowed(GateBean.CALLER)
@Remote(Gate.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class GateBean implements Gate {

    /** The role that may join the line (the HTTP API's {@code caller}). */
    static final String CALLER = "caller";

    @EJB
    Line line;

    @Resource
    SessionContext context;

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait) throws GateException {
        // the lease default: this instance renews it while the caller waits
        return acquire(limit, callClass, maxWait, CallOptions.NONE);
    }

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, Duration lease) throws GateException {
        return acquire(limit, callClass, maxWait, CallOptions.NONE.withLease(lease));
    }

    @Override
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, CallOptions options)
            throws GateException {
        return line.acquire(limit, callClass, maxWait, program(), options);
    }

    @Override
    public void complete(Permit permit, int vendorStatus) throws GateException {
        line.complete(permit.callId(), program(), vendorStatus, null);
    }

    @Override
    public void complete(Permit permit, int vendorStatus, Duration retryAfter) throws GateException {
        line.complete(permit.callId(), program(), vendorStatus, retryAfter);
    }

    @Override
    public void complete(Permit permit, Outcome outcome) throws GateException {
        line.complete(permit.callId(), program(), outcome);
    }

    @Override
    public Outcome awaitOutcome(Permit permit, Duration maxWait) throws GateException {
        return line.awaitOutcome(permit.callId(), maxWait);
    }

    @Override
    public Attempt tryAcquire(String limit, CallClass callClass) throws GateException {
        return line.tryNow(limit, callClass, program(), CallOptions.NONE);
    }

    @Override
    public Attempt tryAcquire(String limit, CallClass callClass, CallOptions options) throws GateException {
        return line.tryNow(limit, callClass, program(), options);
    }

    @Override
    public Attempt tryConsume(String limit, CallClass callClass) throws GateException {
        return line.tryConsume(limit, callClass, program(), CallOptions.NONE);
    }

    @Override
    public Attempt tryConsume(String limit, CallClass callClass, CallOptions options) throws GateException {
        return line.tryConsume(limit, callClass, program(), options);
    }

    @Override
    public boolean abandon(Permit permit) throws GateException {
        return line.abandon(permit);
    }

    private String program() {
        String name = context.getCallerPrincipal() == null ? null : context.getCallerPrincipal().getName();
        if (name == null || name.isBlank() || name.equals("anonymous")) {
            return "ejb";
        }
        return name.length() <= 64 ? name : name.substring(0, 64);
    }
}
