package dev.gate.web.security;

import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.ExternalContext;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.SecurityContext;
import jakarta.security.enterprise.authentication.mechanism.http.AuthenticationParameters;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.logging.Logger;

/** Backs the sign-in page and the status page's sign-out: a person's session, not a browser pop-up. */
@Named
@RequestScoped
public class SignIn {

    private static final Logger LOG = Logger.getLogger(SignIn.class.getName());

    /** Set by {@link Authentication} when the account could not be checked (the database is unavailable). */
    static final String UNCHECKED = "gate.signIn.unchecked";

    /** Set by {@link Authentication} to the seconds to wait when this address failed too often lately. */
    static final String HELD = "gate.signIn.held";

    @Inject
    SecurityContext security;

    @Inject
    FacesContext faces;

    private String name;
    private String password;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    /** Checks the account; on success the status page, else the sign-in page again with why. */
    public String signIn() throws IOException {
        ExternalContext external = faces.getExternalContext();
        HttpServletRequest request = (HttpServletRequest) external.getRequest();
        AuthenticationStatus status = security.authenticate(request, (HttpServletResponse) external.getResponse(),
                AuthenticationParameters.withParams().newAuthentication(true)
                        .credential(new UsernamePasswordCredential(name == null ? "" : name,
                                password == null ? "" : password)));
        if (status == AuthenticationStatus.SUCCESS) {
            LOG.info(() -> "status page: " + name + " signed in");
            return "/status.xhtml?faces-redirect=true";
        }
        if (status == AuthenticationStatus.SEND_CONTINUE) {
            faces.responseComplete();
            return null;
        }
        Object held = request.getAttribute(HELD);
        faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR,
                held != null ? "Too many failed sign-ins from this address: try again in " + held + " s."
                        : Boolean.TRUE.equals(request.getAttribute(UNCHECKED))
                        ? "The account cannot be checked: the gate's database is unavailable. Try again shortly."
                        : "Wrong name or password.", null));
        return null;
    }

    /** Ends the session; back to the sign-in page. */
    public String signOut() throws ServletException {
        ExternalContext external = faces.getExternalContext();
        String who = external.getRemoteUser();
        external.invalidateSession();
        ((HttpServletRequest) external.getRequest()).logout();
        LOG.info(() -> "status page: " + who + " signed out");
        return Authentication.SIGN_IN_PAGE + "?faces-redirect=true";
    }
}
