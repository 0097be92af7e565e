package dev.gate.web.status;

import dev.gate.app.Operations;
import dev.gate.client.GateException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.time.Duration;

/**
 * An operator's buttons on the status page: pause a limit for some minutes, resume it, drain a program. Each goes
 * through the same use case as the HTTP API and is recorded with who did it. The forms are JSF postbacks, so each
 * carries the view's state token: a page of another site cannot post them (CSRF).
 */
@Named
@RequestScoped
public class LimitActions {

    @EJB
    Operations operations;

    @Inject
    FacesContext faces;

    private int minutes = 10;
    private String program;

    public int getMinutes() {
        return minutes;
    }

    public void setMinutes(int minutes) {
        this.minutes = minutes;
    }

    public String getProgram() {
        return program;
    }

    public void setProgram(String program) {
        this.program = program;
    }

    public void pause(String limit) {
        act(() -> operations.pause(limit, Duration.ofMinutes(Math.max(1, Math.min(minutes, 7 * 24 * 60))), actor()),
                "limit " + limit + " paused for " + minutes + " min");
    }

    public void resume(String limit) {
        act(() -> operations.resume(limit, actor()), "limit " + limit + " resumed");
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

    private String actor() {
        return faces.getExternalContext().getRemoteUser();
    }
}
