package dev.gate.web.status;

import dev.gate.app.LimitAdmin;
import dev.gate.client.CallClass;
import dev.gate.client.GateException;
import dev.gate.client.LimitStatus;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;

import java.util.Arrays;
import java.util.List;

/** Backs status.xhtml: one database snapshot per request. */
@Named
@RequestScoped
public class StatusPage {

    @EJB
    LimitAdmin admin;

    private List<LimitStatus> limits = List.of();
    private String problem;

    @PostConstruct
    void load() {
        try {
            limits = admin.all();
        } catch (GateException e) {
            problem = e.getMessage();
        }
    }

    public List<LimitStatus> getLimits() {
        return limits;
    }

    /** Set when the page could not be read: the database is unavailable (or busy). */
    public String getProblem() {
        return problem;
    }

    public List<String> getClasses() {
        return Arrays.stream(CallClass.values()).map(Enum::name).toList();
    }
}
