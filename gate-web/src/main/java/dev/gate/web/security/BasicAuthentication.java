package dev.gate.web.security;

import dev.gate.web.problem.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * HTTP Basic over {@link AccountStore}, for the API (by way of {@link Authentication}, the one mechanism), with one
 * answer the standard mechanism cannot give: credentials that cannot
 * be checked because the database is unavailable get the same 503 "Calls are paused" (problem+json, Retry-After)
 * that every call gets in an outage, not a 401 that would tell a program its right password is wrong.
 */
@ApplicationScoped
public class BasicAuthentication {

    private static final Logger LOG = Logger.getLogger(BasicAuthentication.class.getName());
    static final String CHALLENGE = "Basic realm=\"gate\", charset=\"UTF-8\"";

    @Inject
    AccountStore accounts;

    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        String[] credentials = credentials(request.getHeader("Authorization"));
        if (credentials != null) {
            warnOnceIfInClear(request);
            AccountStore.Check check = accounts.check(credentials[0], credentials[1], request.getRemoteAddr());
            if (check instanceof AccountStore.Check.Passed passed) {
                return context.notifyContainerAboutLogin(passed.account().name(), passed.account().roles());
            }
            if (check instanceof AccountStore.Check.Held held) {
                return held(request, response, held.retryAfterSeconds());
            }
            if (check instanceof AccountStore.Check.Unchecked unchecked && context.isProtected()) {
                LOG.fine(() -> "credentials of '" + credentials[0] + "' could not be checked: " + unchecked.why());
                return paused(request, response);
            }
        }
        if (context.isProtected()) {
            response.setHeader("WWW-Authenticate", CHALLENGE);
            return context.responseUnauthorized();
        }
        return context.doNothing();
    }

    /**
     * As the standard mechanism answers 401: the container's error page ({@code ProblemServlet}) writes the problem
     * this request carries.
     */
    private static AuthenticationStatus paused(HttpServletRequest request, HttpServletResponse response) {
        request.setAttribute(Problem.REQUEST_ATTRIBUTE, Problem.of(503, "paused", "Calls are paused",
                "calls are paused: credentials cannot be checked while the gate's database is unavailable; try"
                        + " again shortly"));
        try {
            response.sendError(503);
        } catch (IOException e) {
            // the client is gone; nothing more to tell it
        }
        return AuthenticationStatus.SEND_FAILURE;
    }

    private static final AtomicBoolean WARNED_IN_CLEAR = new AtomicBoolean();

    /**
     * Basic credentials over plain HTTP are fine on loopback (development, a proxy on the same host); anywhere else
     * they cross a network in clear: said once, as a WARNING, with what to do (README "Security").
     */
    private static void warnOnceIfInClear(HttpServletRequest request) {
        if (request.isSecure() || WARNED_IN_CLEAR.get() || PlainHttpWarning.loopback(request.getLocalAddr())) {
            return;
        }
        if (WARNED_IN_CLEAR.compareAndSet(false, true)) {
            LOG.warning("credentials arrive over plain HTTP on " + request.getLocalAddr() + ":"
                    + request.getLocalPort() + " from " + request.getRemoteAddr() + ": put TLS in front of the gate (an"
                    + " HTTPS listener or a TLS-terminating proxy; README \"Security\"); said once");
        }
    }

    /** Too many failed sign-ins from this address: 429 with Retry-After, the password not checked. */
    static AuthenticationStatus held(HttpServletRequest request, HttpServletResponse response, long seconds) {
        request.setAttribute(Problem.REQUEST_ATTRIBUTE, Problem.of(429, "sign-in-held", "Too many failed sign-ins",
                "credentials: too many failed sign-ins from this address; try again in " + seconds + " s"));
        request.setAttribute(Problem.RETRY_AFTER_ATTRIBUTE, seconds);
        try {
            response.sendError(429);
        } catch (IOException e) {
            // the client is gone; nothing more to tell it
        }
        return AuthenticationStatus.SEND_FAILURE;
    }

    /** {name, password} from an {@code Authorization: Basic} header, or null when there is none or it is malformed. */
    static String[] credentials(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = pair.indexOf(':');
        return colon < 0 ? null : new String[] {pair.substring(0, colon), pair.substring(colon + 1)};
    }
}
