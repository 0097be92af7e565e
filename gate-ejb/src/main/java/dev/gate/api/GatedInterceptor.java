package dev.gate.api;

import jakarta.annotation.Priority;
import jakarta.ejb.EJB;
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

/**
 * What {@link Gated} does: acquire before the method, report after it (see there). Enabled for every bean archive
 * that holds it ({@code @Priority}); it reaches the gate through the {@link Gate} EJB's portable name. Once the method
 * ran, the caller hears what it returned or threw, never a failed report of it (sent again while the gate is paused
 * or busy, up to a minute; then a WARNING).
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_AFTER)
public class GatedInterceptor implements Serializable {

    private static final long serialVersionUID = 1L;

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
        CallClass callClass = GatedCalls.classFor(g.callClass(),
                () -> personWaiting.isResolvable() && personWaiting.get().isWaiting());
        Permit permit = gate.acquire(g.limit(), callClass, Duration.ofSeconds(g.maxWaitSeconds()), options(g, ctx));
        Object result;
        try {
            result = ctx.proceed();
        } catch (WebApplicationException e) {
            GatedCalls.report(gate, permit, GatedCalls.outcome(e.getResponse()));
            throw e;
        } catch (ResponseProcessingException e) {
            GatedCalls.report(gate, permit, GatedCalls.outcome(e.getResponse()));
            throw e;
        } catch (Exception | Error e) { // the vendor may not have been called: the grant is given up
            GatedCalls.giveUp(gate, permit);
            throw e;
        }
        if (result instanceof Response r) {
            GatedCalls.report(gate, permit, GatedCalls.outcome(r));
        } else if (result instanceof java.net.http.HttpResponse<?> h) {
            GatedCalls.report(gate, permit, VendorAnswers.of(h.statusCode(), h.headers().map()));
        } else {
            GatedCalls.report(gate, permit, new Outcome(200, null));
        }
        return result;
    }

    private static CallOptions options(Gated g, InvocationContext ctx) {
        CallOptions options = CallOptions.NONE;
        if (g.leaseSeconds() > 0) {
            options = options.withLease(Duration.ofSeconds(g.leaseSeconds()));
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
