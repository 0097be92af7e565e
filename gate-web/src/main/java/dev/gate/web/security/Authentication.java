package dev.gate.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;

import dev.gate.app.Account;
import dev.gate.api.GatePausedException;
import jakarta.ejb.EJBException;
import org.eclipse.microprofile.config.ConfigProvider;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The gate's one authentication mechanism. The HTTP API ({@code /api/*}) takes HTTP Basic ({@link BasicAuthentication});
 * the status page takes a person signed in on its sign-in page, kept in the HTTP session: a protected page without one
 * is redirected to the sign-in page, never answered with a browser's pop-up. Basic credentials on a page are still
 * taken (a monitoring script).
 * <p>
 * The API is told by its servlet path and path info, which the server has decoded and stripped of path parameters
 * ({@code /gate/%61pi/...} and {@code /gate/api;x/...} are the API too), so no spelling of an API path takes the page's
 * session: a form another site posts with the person's cookie gets 401. A page session reads its account again at
 * least every {@code gate.page.recheck-seconds} (60): an operator removed or demoted loses those powers within that
 * time, however often the page refreshes.
 */
@ApplicationScoped
public class Authentication implements HttpAuthenticationMechanism {

    /** The sign-in page, relative to the context root. */
    public static final String SIGN_IN_PAGE = "/login.xhtml";

    private static final String SIGNED_IN = "gate.signedIn";

    /** Where the API lives (JAX-RS's application path is below it). */
    static final String API = "/api";

    static final Duration RECHECK = Duration.ofSeconds(ConfigProvider.getConfig()
            .getOptionalValue("gate.page.recheck-seconds", Long.class).orElse(60L));

    private static final Logger LOG = Logger.getLogger(Authentication.class.getName());

    /** Who signed in on the page, and when its account was last read, kept in the session. */
    record SignedIn(String name, Set<String> roles, Instant checkedAt) implements Serializable {
    }

    @Inject
    AccountStore accounts;

    @Inject
    BasicAuthentication basic;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        if (isApi(request) || request.getHeader("Authorization") != null) {
            return basic.validateRequest(request, response, context);
        }
        Credential credential = context.getAuthParameters().getCredential();
        if (context.isAuthenticationRequest() && credential instanceof UsernamePasswordCredential given) {
            return signIn(request, context, given);
        }
        HttpSession session = request.getSession(false);
        if (session != null && session.getAttribute(SIGNED_IN) instanceof SignedIn signedIn) {
            SignedIn who = rechecked(session, signedIn);
            if (who != null) {
                return context.notifyContainerAboutLogin(who.name(), who.roles());
            }
        }
        if (context.isProtected()) {
            return context.redirect(request.getContextPath() + SIGN_IN_PAGE);
        }
        return context.doNothing();
    }

    /**
     * Whether the request is for the API, by its path as the server decoded and normalized it (servlet path and path
     * info: no %-escapes, no ;parameters, no dot segments), never by the raw URI.
     */
    static boolean isApi(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return path.equals(API) || path.startsWith(API + "/");
    }

    private AuthenticationStatus signIn(HttpServletRequest request, HttpMessageContext context,
                                        UsernamePasswordCredential given) {
        AccountStore.Check check = accounts.check(given.getCaller(), given.getPasswordAsString(),
                request.getRemoteAddr());
        if (check instanceof AccountStore.Check.Passed passed) {
            request.getSession(true);
            request.changeSessionId(); // a session id known before sign-in is worth nothing after it
            request.getSession().setAttribute(SIGNED_IN, new SignedIn(passed.account().name(),
                    Set.copyOf(passed.account().roles()), Instant.now()));
            return context.notifyContainerAboutLogin(passed.account().name(), passed.account().roles());
        }
        if (check instanceof AccountStore.Check.Unchecked) {
            request.setAttribute(SignIn.UNCHECKED, Boolean.TRUE);
        }
        if (check instanceof AccountStore.Check.Held held) {
            request.setAttribute(SignIn.HELD, held.retryAfterSeconds());
        }
        return AuthenticationStatus.SEND_FAILURE;
    }

    /**
     * The session's account as it stands now: read again when the last read is older than {@link #RECHECK}; null (and
     * the session ended) when the account is gone. While the accounts cannot be read the session keeps what it had:
     * the page then shows that calls are paused, and nothing can be changed without the database anyway.
     */
    private SignedIn rechecked(HttpSession session, SignedIn who) {
        Instant now = Instant.now();
        if (who.checkedAt() != null && Duration.between(who.checkedAt(), now).compareTo(RECHECK) < 0) {
            return who;
        }
        Optional<Account> account;
        try {
            account = accounts.current(who.name());
        } catch (GatePausedException | EJBException e) {
            return who;
        }
        if (account.isEmpty()) {
            LOG.info(() -> "status page: the account " + who.name() + " was removed; its session ends");
            session.invalidate();
            return null;
        }
        SignedIn fresh = new SignedIn(who.name(), Set.copyOf(account.get().roles()), now);
        if (!fresh.roles().equals(who.roles())) {
            LOG.info(() -> "status page: the roles of " + who.name() + " changed from " + who.roles() + " to "
                    + fresh.roles() + "; its session has the new ones");
        }
        session.setAttribute(SIGNED_IN, fresh);
        return fresh;
    }
}
