package dev.gate.api;

import jakarta.annotation.Priority;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.client.ResponseProcessingException;
import jakarta.ws.rs.core.Response;

import java.io.Serializable;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * What {@link Gated} does: acquire before the method, report after it (see there). Enabled for every bean archive
 * that holds it ({@code @Priority}); it reaches the gate through the {@link Gate} EJB's portable name. Once the method
 * ran, the caller hears what it returned or threw, never a failed report of it (logged as a WARNING instead).
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_AFTER)
public class GatedInterceptor implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(GatedInterceptor.class.getName());

    @EJB(lookup = Gate.JNDI_NAME)
    Gate gate;

    @Inject
    Instance<PersonWaiting> personWaiting;

    @AroundInvoke
    public Object gated(InvocationContext ctx) throws Exception {
        Gated g = binding(ctx);
        if (g.limit().isEmpty()) {
            throw new IllegalStateException("@Gated on " + ctx.getMethod() + " names no limit");
        }
        CallClass callClass = personWaits() ? CallClass.INTERACTIVE : g.callClass();
        Permit permit = gate.acquire(g.limit(), callClass, Duration.ofSeconds(g.maxWaitSeconds()), options(g, ctx));
        Object result;
        try {
            result = ctx.proceed();
        } catch (WebApplicationException e) {
            complete(permit, e.getResponse());
            throw e;
        } catch (ResponseProcessingException e) {
            complete(permit, e.getResponse());
            throw e;
        } catch (Exception | Error e) { // the vendor may not have been called: the grant is given up
            try {
                gate.abandon(permit);
            } catch (GateException | RuntimeException notTold) {
                LOG.warning(() -> "call " + permit.callId() + " limit=" + permit.limit() + ": not given up ("
                        + notTold.getMessage() + "); its lease will end it");
            }
            throw e;
        }
        if (result instanceof Response r) {
            complete(permit, r);
        } else if (result instanceof java.net.http.HttpResponse<?> h) {
            report(permit, VendorAnswers.of(h.statusCode(), h.headers().map()));
        } else {
            report(permit, new Outcome(200, null));
        }
        return result;
    }

    private void complete(Permit permit, Response r) {
        if (r == null) {
            report(permit, new Outcome(200, null));
            return;
        }
        java.util.Map<String, java.util.List<String>> headers = new java.util.HashMap<>();
        r.getStringHeaders().forEach((name, values) -> headers.put(name, values));
        report(permit, VendorAnswers.of(r.getStatus(), headers));
    }

    // The vendor answered: its answer (or exception) is the caller's, whatever becomes of the report; a report the
    // gate did not take leaves the grant to end at its lease (ABANDONED), as a permit never completed does.
    private void report(Permit permit, Outcome outcome) {
        try {
            gate.complete(permit, outcome);
        } catch (GateException | RuntimeException notTold) {
            LOG.warning(() -> "call " + permit.callId() + " limit=" + permit.limit() + ": the vendor answered "
                    + outcome.status() + ", but the outcome was not recorded (" + notTold.getMessage()
                    + "); the grant ends at its lease");
        }
    }

    private boolean personWaits() {
        try {
            return personWaiting.isResolvable() && personWaiting.get().isWaiting();
        } catch (ContextNotActiveException noRequest) { // a timer, a batch step: nobody waits
            return false;
        }
    }

    private static CallOptions options(Gated g, InvocationContext ctx) {
        CallOptions options = CallOptions.NONE;
        if (g.leaseSeconds() > 0) {
            options = options.withLease(Duration.ofSeconds(g.leaseSeconds()));
        }
        if (g.dedupeKeyParameter() >= 0) {
            options = options.withDedupeKey(key(ctx, g.dedupeKeyParameter(), "dedupeKeyParameter"));
        }
        if (g.concurrencyKeyParameter() >= 0) {
            options = options.withConcurrencyKey(key(ctx, g.concurrencyKeyParameter(), "concurrencyKeyParameter"));
        }
        return g.cost() == 1 ? options : options.withCost(g.cost());
    }

    private static String key(InvocationContext ctx, int position, String attribute) {
        Object[] parameters = ctx.getParameters();
        if (position >= parameters.length || parameters[position] == null) {
            throw new IllegalArgumentException("@Gated(" + attribute + " = " + position + ") on " + ctx.getMethod()
                    + ": no such parameter, or it is null");
        }
        return String.valueOf(parameters[position]);
    }

    private static Gated binding(InvocationContext ctx) {
        Gated g = ctx.getMethod().getAnnotation(Gated.class);
        if (g == null) {
            g = ctx.getMethod().getDeclaringClass().getAnnotation(Gated.class);
        }
        if (g == null) {
            g = ctx.getTarget().getClass().getAnnotation(Gated.class);
        }
        if (g == null) {
            throw new IllegalStateException("no @Gated on " + ctx.getMethod());
        }
        return g;
    }
}
