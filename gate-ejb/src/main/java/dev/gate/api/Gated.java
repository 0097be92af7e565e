package dev.gate.api;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A method (or every method of a class) that calls a rate-limited vendor once: it waits in {@link #limit}'s line
 * before it runs, and its outcome is reported when it returns ({@link GatedInterceptor}): a returned
 * {@code jakarta.ws.rs.core.Response} or {@code java.net.http.HttpResponse} by its status, Retry-After and the vendor's
 * own count; a thrown {@code WebApplicationException} or {@code ResponseProcessingException} by its response's status;
 * any other exception gives the grant up (ABANDONED: the vendor may not have been called) and is thrown on; any other
 * return value is a 200. The caller's program is its principal, as for the {@link Gate} EJB.
 *
 * <p>The call's class is {@link #callClass}, unless the request marks that a person waits ({@link PersonWaiting}):
 * then INTERACTIVE. A concurrency key comes from a parameter: {@link #concurrencyKeyParameter} names it by its
 * position (0 first; -1: none), its {@code toString()} the key (1-200 characters).
 *
 * <p>No dedupe key: a caller that joins another's call must not call the vendor, and the method's result is the first
 * caller's alone (it cannot be shared across callers or servers). Fetch once with {@link Gate#acquire} and a dedupe
 * key, where a joiner reads the shared answer with {@link Gate#awaitOutcome}.
 */
@InterceptorBinding
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Gated {

    /** The limit whose line the call waits in. */
    @Nonbinding
    String limit() default "";

    /** The call's class, unless a person waits ({@link PersonWaiting}). */
    @Nonbinding
    CallClass callClass() default CallClass.SCHEDULED;

    /** How long the method waits for its grant before {@link GateTimeoutException}, seconds. */
    @Nonbinding
    long maxWaitSeconds() default 60;

    /** The grant's lease, seconds (0: the gate's default): the method must return within it. */
    @Nonbinding
    long leaseSeconds() default 0;

    /** The position of the parameter whose text is the concurrency key (-1: none). */
    @Nonbinding
    int concurrencyKeyParameter() default -1;

    /** What the call costs in units of the quota (1 by default). */
    @Nonbinding
    int cost() default 1;
}
