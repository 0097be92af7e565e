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

import java.io.Serializable;
import java.util.Set;

/**
 * The gate's one authentication mechanism. The HTTP API ({@code /api/*}) takes HTTP Basic ({@link BasicAuthentication});
 * the status page takes a person signed in on its sign-in page, kept in the HTTP session: a protected page without one
 * is redirected to the sign-in page, never answered with a browser's pop-up. Basic credentials on a page are still
 * taken (a monitoring script).
 */
@ApplicationScoped
public class Authentication implements HttpAuthenticationMechanism {

    /** The sign-in page, relative to the context root. */
    public static final String SIGN_IN_PAGE = "/login.xhtml";

    private static final String SIGNED_IN = "gate.signedIn";

    /** Who signed in on the page, kept in the session. */
    record SignedIn(String name, Set<String> roles) implements Serializable {
    }

    @Inject
    AccountStore accounts;

    @Inject
    BasicAuthentication basic;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if (path.startsWith("/api/") || request.getHeader("Authorization") != null) {
            return basic.validateRequest(request, response, context);
        }
        Credential credential = context.getAuthParameters().getCredential();
        if (context.isAuthenticationRequest() && credential instanceof UsernamePasswordCredential given) {
            return signIn(request, context, given);
        }
        HttpSession session = request.getSession(false);
        if (session != null && session.getAttribute(SIGNED_IN) instanceof SignedIn who) {
            return context.notifyContainerAboutLogin(who.name(), who.roles());
        }
        if (context.isProtected()) {
            return context.redirect(request.getContextPath() + SIGN_IN_PAGE);
        }
        return context.doNothing();
    }

    private AuthenticationStatus signIn(HttpServletRequest request, HttpMessageContext context,
                                        UsernamePasswordCredential given) {
        AccountStore.Check check = accounts.check(given.getCaller(), given.getPasswordAsString());
        if (check instanceof AccountStore.Check.Passed passed) {
            request.getSession(true);
            request.changeSessionId(); // a session id known before sign-in is worth nothing after it
            request.getSession().setAttribute(SIGNED_IN, new SignedIn(passed.account().name(),
                    Set.copyOf(passed.account().roles())));
            return context.notifyContainerAboutLogin(passed.account().name(), passed.account().roles());
        }
        if (check instanceof AccountStore.Check.Unchecked) {
            request.setAttribute(SignIn.UNCHECKED, Boolean.TRUE);
        }
        return AuthenticationStatus.SEND_FAILURE;
    }
}
