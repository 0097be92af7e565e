package dev.gate.web.status;

import dev.gate.client.CallClass;
import dev.gate.client.GateException;
import dev.gate.ejb.GateStatus;
import dev.gate.store.LimitStatus;
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
    GateStatus status;

    private List<LimitStatus> limits = List.of();
    private String problem;

    @PostConstruct
    void load() {
        try {
            limits = status.limits();
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
