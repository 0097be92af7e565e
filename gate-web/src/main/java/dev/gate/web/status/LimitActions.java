package dev.gate.web.status;

import dev.gate.app.LimitAdmin;
import dev.gate.app.Operations;
import dev.gate.api.GateException;
import dev.gate.api.LimitSpec;
import dev.gate.app.Names;
import dev.gate.web.api.LimitDeclaration;
import dev.gate.web.api.ProblemException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.time.Duration;

/**
 * An operator's buttons on the status page: pause a limit for some minutes and resume it, change its rule, remove it,
 * cancel one of its waiting calls, drain a program. Each goes
 * through the same use case as the HTTP API and is recorded with who did it. The forms are JSF postbacks, so each
 * carries the view's state token: a page of another site cannot post them (CSRF). Each panel's form names its limit
 * (a hidden field): the action acts on that name, whatever order the panels are in by the time it arrives.
 */
@Named
@RequestScoped
public class LimitActions {

    @EJB
    Operations operations;

    @EJB
    LimitAdmin limits;

    @Inject
    FacesContext faces;

    private String program;

    public String getProgram() {
        return program;
    }

    public void setProgram(String program) {
        this.program = program;
    }

    public void pause() {
        String limit = limit();
        if (limit == null) {
            return;
        }
        Long asked = number("minutes");
        long minutes = asked == null ? 10 : Math.max(1, Math.min(asked, 7 * 24 * 60));
        act(() -> operations.pause(limit, Duration.ofMinutes(minutes), actor()),
                "limit " + limit + " paused for " + minutes + " min");
    }

    public void resume() {
        String limit = limit();
        if (limit == null) {
            return;
        }
        act(() -> operations.resume(limit, actor()), "limit " + limit + " resumed");
    }

    /** A new rule for the limit: calls per window seconds (its options and more rules stay). */
    public void change() {
        String limit = limit();
        if (limit == null) {
            return;
        }
        Long calls = number("calls");
        Long windowSeconds = number("window");
        if (calls == null || windowSeconds == null || calls < 1 || windowSeconds < 1 || calls > 1_000_000
                || windowSeconds > 7 * 24 * 3600) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR,
                    "A rule is at least 1 call per at least 1 second.", null));
            return;
        }
        int perWindow = calls.intValue();
        act(() -> limits.rePace(limit, perWindow, Duration.ofSeconds(windowSeconds), actor()),
                "limit " + limit + " changed to " + calls + " per " + windowSeconds + " s");
    }

    /**
     * New rules and options for the limit, as the API's {@code PUT} body (the form's textarea, named
     * "declaration"): fields left out take their defaults.
     */
    public void declare() {
        String limit = limit();
        if (limit == null) {
            return;
        }
        String json = faces.getExternalContext().getRequestParameterMap().get("declaration");
        LimitSpec spec;
        try {
            spec = LimitDeclaration.parse(json == null ? "" : json);
        } catch (ProblemException e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, e.problem().detail(), null));
            return;
        }
        act(() -> limits.put(limit, spec, actor()), "limit " + limit + " changed: " + spec.calls() + " per "
                + spec.window().toSeconds() + " s with its options");
    }

    /** Removes the limit and its history, when it has no live calls. */
    public void remove() {
        String limit = limit();
        if (limit == null) {
            return;
        }
        act(() -> {
            LimitAdmin.Removal removal = limits.remove(limit, actor());
            if (!removal.removed() && removal.found()) {
                throw new GateException("limit " + limit + " has " + removal.liveCalls()
                        + " waiting or granted calls; remove it when they are done");
            }
        }, "limit " + limit + " removed");
    }

    /** Cancels a waiting call of the limit by its id. */
    public void cancel() {
        String limit = limit();
        if (limit == null) {
            return;
        }
        Long callId = number("call");
        if (callId == null) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Give the id of the call.", null));
            return;
        }
        long id = callId;
        act(() -> {
            if (!operations.cancel(limit, id, actor())) {
                throw new GateException("call " + id + " is not waiting on limit " + limit);
            }
        }, "call " + id + " cancelled");
    }

    public void drain() {
        if (program == null || program.isBlank()) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Name the program to drain.", null));
            return;
        }
        String name = program.trim();
        act(() -> operations.drain(name, null, actor()), "program " + name + " drained");
    }

    private interface Action {
        void run() throws GateException;
    }

    private void act(Action action, String done) {
        if (!faces.getExternalContext().isUserInRole("operator")) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Only an operator may do that.", null));
            return;
        }
        try {
            action.run();
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, done + ".", null));
        } catch (GateException e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, e.getMessage(), null));
        }
    }

    /**
     * The limit the form names (its hidden {@code limit} field), never the row the button sat in: the panels re-sort
     * at each refresh, and a click that crosses one would act on whichever limit holds that row now. Null (with a
     * message) when the form names none or no valid one.
     */
    private String limit() {
        String limit = faces.getExternalContext().getRequestParameterMap().get("limit");
        if (!Names.isValid(limit)) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "The form names no limit.", null));
            return null;
        }
        return limit;
    }

    /**
     * A number the form sent, or null. Read from the request, as the limit is: the panels' forms sit in a repeat, and
     * a value bound to the bean from any row but the last was lost (the repeat's last row reset the form's
     * submitted mark), so a rule typed into any panel but the last never arrived.
     */
    private Long number(String name) {
        String value = faces.getExternalContext().getRequestParameterMap().get(name);
        try {
            return value == null || value.isBlank() ? null : Long.valueOf(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private String actor() {
        return faces.getExternalContext().getRemoteUser();
    }
}
